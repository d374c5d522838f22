import type { ReactNode } from "react";

/** A titled card; `wide` spans the whole grid row. Sections are labelled by their heading. */
export function Panel({
  id,
  title,
  wide,
  aside,
  children,
}: {
  id: string;
  title: string;
  wide?: boolean;
  /** Small text beside the title (a count, a rule). */
  aside?: ReactNode;
  children: ReactNode;
}) {
  return (
    <section
      className={wide ? "card wide" : "card"}
      aria-labelledby={`${id}-title`}
      data-testid={`panel-${id}`}
    >
      <div className="card-head">
        <h2 id={`${id}-title`}>{title}</h2>
        {aside ? <span className="muted small">{aside}</span> : null}
      </div>
      {children}
    </section>
  );
}

/** Shown until a panel's first answer arrives; same box as the content, so nothing jumps. */
export function Loading() {
  return <p className="muted">Loading…</p>;
}

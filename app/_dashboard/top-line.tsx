"use client";

import type { ConfirmRequest } from "./confirm-dialog";
import { formatDuration, formatTrail } from "./format";
import { type Fix, headline } from "./headline";
import type { Overview, Transition } from "./types";
import type { Actions } from "./use-actions";

const CLOCK = new Intl.DateTimeFormat("en-GB", {
  hour: "2-digit",
  minute: "2-digit",
  second: "2-digit",
  hourCycle: "h23",
});

/**
 * The answer at a glance: awake and when it sleeps (with a countdown bar), asleep and what
 * wakes it, or failed with the one button that fixes it.
 */
export function TopLine({
  overview,
  now,
  actions,
  trail,
  confirm,
}: {
  overview: Overview | null;
  now: number;
  actions: Actions;
  trail: Transition[];
  confirm(request: ConfirmRequest): Promise<boolean>;
}) {
  if (!overview)
    return (
      <section className="topline card wide" aria-label="Agent status" data-testid="top-line">
        <p className="topline-text muted">Loading…</p>
      </section>
    );
  const h = headline(overview, now);
  const locked = overview.transitioning || actions.busy !== null;
  const fix = async (f: Fix) => {
    if (!f) return;
    // Starting fresh replaces the agent's files with an empty sandbox: asked first.
    if (f.body.fresh) {
      const ok = await confirm({
        title: "Start fresh?",
        body: (
          <p>
            The agent starts in an empty sandbox. Its saved state cannot be restored (that is why it
            failed); no snapshot is deleted.
          </p>
        ),
        confirmLabel: "Start fresh",
      });
      if (!ok) return;
    }
    await actions.run(f.label, "/api/sandbox/start", { body: f.body });
  };
  return (
    <section
      id="top-line"
      tabIndex={-1}
      className={`topline card wide tone-${h.tone}`}
      aria-label="Agent status"
      data-testid="top-line"
      data-tone={h.tone}
    >
      <div className="row spread wrap">
        <div>
          <p className="topline-text" data-testid="top-line-text">
            {h.text}
          </p>
          <p className="muted topline-detail" data-testid="top-line-detail">
            {h.detail}
          </p>
        </div>
        {h.fix ? (
          <button
            type="button"
            disabled={locked}
            onClick={() => fix(h.fix)}
            data-testid="top-line-fix"
          >
            {h.fix.label}
          </button>
        ) : null}
      </div>
      <p className="muted small num" data-testid="transition-trail">
        {formatTrail(trail, (at) => CLOCK.format(at))}
      </p>
      {h.countdown ? (
        <div
          className="bar countdown"
          role="progressbar"
          aria-label="Time left before the agent sleeps"
          aria-valuemin={0}
          aria-valuemax={100}
          aria-valuenow={Math.round(h.countdown.share * 100)}
          aria-valuetext={`${formatDuration(h.countdown.leftMs)} left`}
          data-testid="countdown"
        >
          <div className="bar-fill" style={{ width: `${(h.countdown.share * 100).toFixed(1)}%` }} />
        </div>
      ) : null}
    </section>
  );
}

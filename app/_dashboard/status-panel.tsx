import type { ReactNode } from "react";
import { asSentence, formatAge, formatClock, formatStatusAge } from "./format";
import { Loading, Panel } from "./panel";
import type { Overview } from "./types";

/** The headline: status and its age, why, the sandbox, and the actions beneath. */
export function StatusPanel({
  overview,
  now,
  children,
}: {
  overview: Overview | null;
  now: number;
  children: ReactNode;
}) {
  const i = overview?.instance;
  const age = i ? formatStatusAge(i.status, i.since, now) : "";
  return (
    <Panel id="status" title="Agent" wide aside={i ? `instance “${i.name}”` : null}>
      {i ? (
        <div className="status-grid">
          <div>
            <p className="status-line">
              <span className={`pill status-${i.status}`} data-testid="status">
                {i.status}
              </span>
              <span className="num" data-testid="status-age" title={formatClock(i.since, now)}>
                {age}
              </span>
            </p>
            {/* Announces status changes only; the ticking age above would be noise. */}
            <p className="visually-hidden" aria-live="polite" data-testid="status-announce">
              The agent is {i.status}.
            </p>
            <p className="reserve" data-testid="status-reason">
              {asSentence(i.reason) === asSentence(age) ? "" : asSentence(i.reason)}
            </p>
            <p className="error reserve" data-testid="instance-error">
              {i.error ? `Last error: ${asSentence(i.error)}` : ""}
            </p>
          </div>
          <dl className="facts">
            <dt>Sandbox</dt>
            <dd className="mono" data-testid="sandbox-id">
              {i.sandboxId ?? "none"}
            </dd>
            <dt>Provider</dt>
            <dd data-testid="provider">{i.provider}</dd>
            <dt>Agent</dt>
            <dd data-testid="agent">{i.agent}</dd>
            <dt>Snapshot</dt>
            <dd className="mono">{i.snapshotId ?? "none yet"}</dd>
            <dt>Wake hooks</dt>
            <dd>{i.hooksRegistered ? "registered (messages wake it)" : "not registered"}</dd>
            <dt>Sandbox created</dt>
            <dd className="num">{i.sandboxCreatedAt ? formatAge(i.sandboxCreatedAt, now) : "—"}</dd>
          </dl>
        </div>
      ) : (
        <Loading />
      )}
      {children}
    </Panel>
  );
}

import { asSentence, formatClock, formatMs, formatTimestamp, phaseTimings } from "./format";
import { Loading, Panel } from "./panel";
import type { LifecycleEvent } from "./types";

/** Newest first; the rest is one scroll away (the event log itself is capped server-side). */
const SHOWN = 60;

/** The lifecycle timeline: what happened, in words, with wake/sleep phase timings. */
export function EventsPanel({ events, now }: { events: LifecycleEvent[] | null; now: number }) {
  return (
    <Panel
      id="events"
      title="Lifecycle events"
      wide
      aside={events?.length ? `${Math.min(events.length, SHOWN)} most recent` : null}
    >
      {events ? (
        <div className="scroll tall">
          {events.length === 0 ? (
            <p className="muted">Nothing has happened yet. Start the agent to see its lifecycle.</p>
          ) : (
            <ol className="timeline plain">
              {events.slice(0, SHOWN).map((e) => (
                <EventItem key={e.id} event={e} now={now} />
              ))}
            </ol>
          )}
        </div>
      ) : (
        <Loading />
      )}
    </Panel>
  );
}

function EventItem({ event: e, now }: { event: LifecycleEvent; now: number }) {
  const phases = phaseTimings(e.details);
  const total = phases.find((p) => p.key === "totalMs")?.ms;
  const parts = phases.filter((p) => p.key !== "totalMs");
  return (
    <li className={`event level-${e.level}`} data-testid="event" data-type={e.type}>
      <time
        className="num muted"
        dateTime={new Date(e.at).toISOString()}
        title={formatTimestamp(e.at)}
      >
        {formatClock(e.at, now)}
      </time>
      <div>
        <p>
          {e.level === "info" ? null : <span className={`pill level-${e.level}`}>{e.level}</span>}{" "}
          {asSentence(e.message)}
        </p>
        <p className="muted small mono">
          {e.type}
          {e.sandboxId ? ` · ${e.sandboxId}` : ""}
        </p>
        {parts.length ? (
          <p className="phases small num" data-testid="event-timings">
            {total !== undefined ? <strong>{formatMs(total)} total: </strong> : null}
            {parts.map((p, idx) => (
              <span key={p.key}>
                {idx ? " · " : ""}
                {p.label} {formatMs(p.ms)}
              </span>
            ))}
          </p>
        ) : null}
      </div>
    </li>
  );
}

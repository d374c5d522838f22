"use client";

import { useState } from "react";
import { type EventFilter, filterEvents, summarizeEvent } from "./event-summary";
import { formatMs, formatTimestamp, phaseTimings } from "./format";
import { Loading, Panel } from "./panel";
import type { LifecycleEvent } from "./types";

/** Newest first; older ones behind "show more" (the page itself scrolls, never a box in it). */
const PAGE = 25;

const CLOCK = new Intl.DateTimeFormat("en-GB", {
  hour: "2-digit",
  minute: "2-digit",
  second: "2-digit",
  hourCycle: "h23",
});

/** The lifecycle timeline: one row per transition, expandable into its phases. */
export function EventsPanel({
  events,
  error,
}: {
  events: LifecycleEvent[] | null;
  error?: string;
}) {
  const [filter, setFilter] = useState<EventFilter>("all");
  const [shown, setShown] = useState(PAGE);
  const list = events ? filterEvents(events, filter) : [];
  return (
    <Panel
      id="events"
      title="Lifecycle events"
      wide
      aside={
        <label className="row small">
          Show{" "}
          <select
            value={filter}
            onChange={(e) => setFilter(e.target.value as EventFilter)}
            data-testid="event-filter"
          >
            <option value="all">all events</option>
            <option value="problems">warnings and errors</option>
          </select>
        </label>
      }
    >
      {error ? (
        <p className="error" data-testid="events-error">
          {error}
        </p>
      ) : null}
      {events ? (
        list.length === 0 ? (
          <p className="muted">
            {filter === "all"
              ? "Nothing has happened yet. Start the agent to see its lifecycle."
              : "No warnings or errors."}
          </p>
        ) : (
          <>
            <ol className="timeline plain">
              {list.slice(0, shown).map((e, n) => (
                <EventRow key={e.id} event={e} summary={summarizeEvent(e, list.slice(n + 1))} />
              ))}
            </ol>
            {list.length > shown ? (
              <button type="button" className="secondary" onClick={() => setShown(shown + PAGE)}>
                Show {Math.min(PAGE, list.length - shown)} older
              </button>
            ) : null}
          </>
        )
      ) : error ? null : (
        <Loading />
      )}
    </Panel>
  );
}

function EventRow({ event: e, summary }: { event: LifecycleEvent; summary: string }) {
  const phases = phaseTimings(e.details).filter((p) => p.key !== "totalMs");
  const time = (
    <time
      className="num muted"
      dateTime={new Date(e.at).toISOString()}
      title={formatTimestamp(e.at)}
    >
      {CLOCK.format(e.at)}
    </time>
  );
  const head = (
    <>
      {e.level === "info" ? null : <span className={`pill level-${e.level}`}>{e.level}</span>}{" "}
      <span data-testid="event-summary">{summary}</span>
    </>
  );
  return (
    <li className={`event level-${e.level}`} data-testid="event" data-type={e.type}>
      {time}
      {phases.length ? (
        <details>
          <summary>{head}</summary>
          <p className="phases small num" data-testid="event-timings">
            {phases.map((p, idx) => (
              <span key={p.key}>
                {idx ? " · " : ""}
                {p.label} {formatMs(p.ms)}
              </span>
            ))}
          </p>
          <p className="muted small mono">
            {e.type}
            {e.sandboxId ? ` · ${e.sandboxId}` : ""}
          </p>
        </details>
      ) : (
        <div>
          <p>{head}</p>
          <p className="muted small mono">
            {e.type}
            {e.sandboxId ? ` · ${e.sandboxId}` : ""}
          </p>
        </div>
      )}
    </li>
  );
}

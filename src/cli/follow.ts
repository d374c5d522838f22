import type { EventView, LogLineView } from "./api-schemas";

/**
 * What is new since the last poll, for `events --follow` and `logs --follow`. Pure: the API
 * gives windows (newest events, the last log lines), the CLI prints only what it has not.
 */

/** Events not seen before, oldest first (the API lists newest first). */
export function newEvents(events: EventView[], seen: ReadonlySet<string>): EventView[] {
  return events.filter((e) => !seen.has(e.id)).reverse();
}

/** The newest event printed so far: everything after it is new, everything before it old. */
export type EventCursor = Pick<EventView, "id" | "at"> | null;

/**
 * Events newer than the cursor, oldest first (the API lists newest first), and the cursor
 * after them. A window of the newest events may reach further back than what was printed
 * (`--limit 5` first, then windows of 200): only what lies above the cursor is new. When the
 * cursor has left the window (a restarted server, a burst longer than the window), events at
 * or after its time are new — older history is never reprinted.
 */
export function eventsAfter(
  events: EventView[],
  cursor: EventCursor,
): { events: EventView[]; cursor: EventCursor } {
  let fresh: EventView[];
  if (cursor === null) fresh = events;
  else {
    const at = events.findIndex((e) => e.id === cursor.id);
    fresh =
      at >= 0 ? events.slice(0, at) : events.filter((e) => e.at >= cursor.at && e.id !== cursor.id);
  }
  const newest = fresh[0];
  return {
    events: [...fresh].reverse(),
    cursor: newest ? { id: newest.id, at: newest.at } : cursor,
  };
}

/**
 * Both answers are tails of one growing log: `next` = `prev` minus its first d lines plus the
 * new ones. The smallest d at which the rest of `prev` starts `next` gives the most overlap
 * (a log repeating itself exactly may hide a repeat; nothing is printed twice).
 */
export function newLogLines(prev: LogLineView[], next: LogLineView[]): LogLineView[] {
  for (let d = 0; d < prev.length; d++) {
    const rest = prev.length - d;
    if (rest > next.length) continue;
    let match = true;
    for (let k = 0; k < rest; k++) {
      if (prev[d + k]?.text !== next[k]?.text) {
        match = false;
        break;
      }
    }
    if (match) return next.slice(rest);
  }
  return next;
}

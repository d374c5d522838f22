import type { EventView, LogLineView } from "./api-schemas";

/**
 * What is new since the last poll, for `events --follow` and `logs --follow`. Pure: the API
 * gives windows (newest events, the last log lines), the CLI prints only what it has not.
 */

/** Events not seen before, oldest first (the API lists newest first). */
export function newEvents(events: EventView[], seen: ReadonlySet<string>): EventView[] {
  return events.filter((e) => !seen.has(e.id)).reverse();
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

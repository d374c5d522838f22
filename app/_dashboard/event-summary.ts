import { asSentence, formatMs, phaseTimings } from "./format";
import type { LifecycleEvent } from "./types";

export type EventFilter = "all" | "problems";

/** Pure: the events a filter keeps ("problems": warnings and errors). */
export function filterEvents(
  events: readonly LifecycleEvent[],
  filter: EventFilter,
): LifecycleEvent[] {
  return filter === "all" ? [...events] : events.filter((e) => e.level !== "info");
}

/**
 * Pure: one line for a transition. A wake reads "Woke in 361 ms for <what woke it>" (the
 * cause is the reason the `creating` transition before it recorded); a sleep "Asleep after
 * a 120 ms snapshot"; anything else its own message.
 * `older` are the events after this one in the newest-first list.
 */
export function summarizeEvent(e: LifecycleEvent, older: readonly LifecycleEvent[]): string {
  const phases = phaseTimings(e.details);
  const total = phases.find((p) => p.key === "totalMs")?.ms;
  if (e.type === "status.running" && total !== undefined) {
    const cause = older.find((o) => o.type === "status.creating")?.message;
    const how = e.message.replace(/^running,?\s*/, "");
    return `Woke in ${formatMs(total)}${cause ? ` for ${cause}` : ""}${how ? ` (${how})` : ""}`;
  }
  if (e.type === "status.sleeping") {
    const snap = phases.find((p) => p.key === "snapshotMs")?.ms;
    return snap !== undefined
      ? `Asleep after a ${formatMs(snap)} snapshot (${e.message.replace(/^asleep \(|\)$/g, "")})`
      : asSentence(e.message);
  }
  return asSentence(e.message);
}

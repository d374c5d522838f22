import type { AwakeInterval } from "../domain/events";

export interface AwakeSummary {
  windowMs: number;
  awakeMs: number;
  asleepMs: number;
  /** Share of the window spent awake, 0..1. */
  awakeShare: number;
}

/**
 * Pure: awake time inside [now - windowMs, now] from the recorded running intervals plus
 * the interval still open (the sandbox running now). Overlaps are merged, never counted twice.
 */
export function summarizeAwake(
  intervals: readonly AwakeInterval[],
  openSince: number | null,
  now: number,
  windowMs: number,
): AwakeSummary {
  const from = now - windowMs;
  const spans = intervals.map((i) => [i.start, i.end] as [number, number]);
  if (openSince !== null) spans.push([openSince, now]);
  const clipped = spans
    .map(([s, e]) => [Math.max(s, from), Math.min(e, now)] as [number, number])
    .filter(([s, e]) => e > s)
    .sort((a, b) => a[0] - b[0]);
  let awakeMs = 0;
  let curStart = -1;
  let curEnd = -1;
  for (const [s, e] of clipped) {
    if (s > curEnd) {
      awakeMs += curEnd - curStart;
      curStart = s;
      curEnd = e;
    } else curEnd = Math.max(curEnd, e);
  }
  awakeMs += curEnd - curStart;
  return { windowMs, awakeMs, asleepMs: windowMs - awakeMs, awakeShare: awakeMs / windowMs };
}

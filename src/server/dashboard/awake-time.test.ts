import { describe, expect, it } from "vitest";
import { summarizeAwake } from "./awake-time";

const H = 3_600_000;
const NOW = 100 * H;
const iv = (start: number, end: number) => ({ sandboxId: "s", start, end });

describe("summarizeAwake", () => {
  it.each([
    ["nothing recorded", [], null, 0],
    ["one hour inside the window", [iv(NOW - 5 * H, NOW - 4 * H)], null, H],
    ["clipped at the window start", [iv(NOW - 25 * H, NOW - 23 * H)], null, H],
    ["entirely before the window", [iv(NOW - 30 * H, NOW - 26 * H)], null, 0],
    ["overlaps merged", [iv(NOW - 5 * H, NOW - 3 * H), iv(NOW - 4 * H, NOW - 2 * H)], null, 3 * H],
    ["open interval counts up to now", [], NOW - 2 * H, 2 * H],
    ["open interval plus history", [iv(NOW - 10 * H, NOW - 9 * H)], NOW - H, 2 * H],
  ] as const)("%s", (_n, intervals, openSince, awake) => {
    const s = summarizeAwake(intervals, openSince, NOW, 24 * H);
    expect(s.awakeMs).toBe(awake);
    expect(s.asleepMs).toBe(24 * H - awake);
  });
});

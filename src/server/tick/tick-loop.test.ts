import { describe, expect, it } from "vitest";
import { LIFECYCLE } from "../../config/constants";
import { nextTickDelayMs } from "./tick-loop";

const NOW = 1_800_000_000_000;
const report = (over: object) => ({ ran: true, nextAt: null, actions: [], errors: [], ...over });

describe("nextTickDelayMs", () => {
  it("ticks again within half a lease when the lock was held (a dead holder, or a busy one)", () => {
    expect(nextTickDelayMs(report({ ran: false }), LIFECYCLE, NOW)).toBe(LIFECYCLE.lockLeaseMs / 2);
  });
  it("otherwise waits the tick interval (also after a failed tick)", () => {
    expect(nextTickDelayMs(report({ actions: ["drain"] }), LIFECYCLE, NOW)).toBe(
      LIFECYCLE.tickIntervalMs,
    );
    expect(nextTickDelayMs(null, LIFECYCLE, NOW)).toBe(LIFECYCLE.tickIntervalMs);
  });
  it("comes back for a retry or a cron job due sooner, but never busy-loops", () => {
    expect(nextTickDelayMs(report({ nextAt: NOW + 5_000 }), LIFECYCLE, NOW)).toBe(5_000);
    expect(nextTickDelayMs(report({ nextAt: NOW - 1 }), LIFECYCLE, NOW)).toBe(250);
    expect(nextTickDelayMs(report({ nextAt: NOW + 3_600_000 }), LIFECYCLE, NOW)).toBe(
      LIFECYCLE.tickIntervalMs,
    );
  });
});

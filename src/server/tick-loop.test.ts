import { describe, expect, it } from "vitest";
import { LIFECYCLE } from "../config/constants";
import { nextTickDelayMs } from "./tick-loop";

describe("nextTickDelayMs", () => {
  it("ticks again within half a lease when the lock was held (a dead holder, or a busy one)", () => {
    expect(nextTickDelayMs({ ran: false, actions: [], errors: [] }, LIFECYCLE)).toBe(
      LIFECYCLE.lockLeaseMs / 2,
    );
  });
  it("otherwise waits the tick interval (also after a failed tick)", () => {
    expect(nextTickDelayMs({ ran: true, actions: ["drain"], errors: [] }, LIFECYCLE)).toBe(
      LIFECYCLE.tickIntervalMs,
    );
    expect(nextTickDelayMs(null, LIFECYCLE)).toBe(LIFECYCLE.tickIntervalMs);
  });
});

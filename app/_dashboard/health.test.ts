import { describe, expect, it } from "vitest";
import { heartbeatPunctuality } from "./health";

describe("heartbeatPunctuality", () => {
  it.each([
    [5_000, 60_000, "on time (every 1 min)"],
    [119_000, 60_000, "on time (every 1 min)"],
    [121_000, 60_000, "overdue (expected every 1 min)"],
  ])("%i ms after a %i ms interval", (age, interval, expected) => {
    expect(heartbeatPunctuality(age, interval)).toBe(expected);
  });
});

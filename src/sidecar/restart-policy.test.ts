import { describe, expect, it } from "vitest";
import { SIDECAR_TIMINGS } from "../protocol/sidecar-config";
import { decideOnExit, type RestartHistory, restartsAfterStableRun } from "./restart-policy";

const T = SIDECAR_TIMINGS; // the seed's numbers: 2 s delay, 5 restarts, 60 s stable window
const NOW = 1_000_000;

describe("decideOnExit", () => {
  const cases: Array<[string, RestartHistory, ReturnType<typeof decideOnExit>]> = [
    [
      "first crash, never listened",
      { restarts: 0, runningSince: null },
      { action: "restart", delayMs: 2_000, restarts: 1 },
    ],
    [
      "fourth restart used",
      { restarts: 3, runningSince: null },
      { action: "restart", delayMs: 2_000, restarts: 4 },
    ],
    [
      "fifth restart is still allowed",
      { restarts: 4, runningSince: NOW - 10_000 },
      { action: "restart", delayMs: 2_000, restarts: 5 },
    ],
    [
      "after 5 restarts the daemon has failed",
      { restarts: 5, runningSince: null },
      { action: "fail", restarts: 5 },
    ],
    [
      "5 restarts and a short run: still failed",
      { restarts: 5, runningSince: NOW - 59_999 },
      { action: "fail", restarts: 5 },
    ],
    [
      "5 restarts but 60 s stable: counter reset, restart 1",
      { restarts: 5, runningSince: NOW - 60_000 },
      { action: "restart", delayMs: 2_000, restarts: 1 },
    ],
    [
      "stable for long: counter reset",
      { restarts: 2, runningSince: NOW - 3_600_000 },
      { action: "restart", delayMs: 2_000, restarts: 1 },
    ],
  ];
  it.each(cases)("%s", (_name, history, expected) => {
    expect(decideOnExit(history, NOW, T)).toEqual(expected);
  });

  it("uses the configured timings", () => {
    const t = { restartDelayMs: 50, maxRestarts: 2, stableResetMs: 100 };
    expect(decideOnExit({ restarts: 1, runningSince: null }, NOW, t)).toEqual({
      action: "restart",
      delayMs: 50,
      restarts: 2,
    });
    expect(decideOnExit({ restarts: 2, runningSince: null }, NOW, t)).toEqual({
      action: "fail",
      restarts: 2,
    });
    expect(decideOnExit({ restarts: 2, runningSince: NOW - 100 }, NOW, t).action).toBe("restart");
  });
});

describe("restartsAfterStableRun", () => {
  const cases: Array<[string, RestartHistory, number]> = [
    ["not running", { restarts: 3, runningSince: null }, 3],
    ["running briefly", { restarts: 3, runningSince: NOW - 1_000 }, 3],
    ["just under the window", { restarts: 1, runningSince: NOW - 59_999 }, 1],
    ["exactly the window", { restarts: 1, runningSince: NOW - 60_000 }, 0],
    ["nothing to reset", { restarts: 0, runningSince: NOW - 90_000 }, 0],
  ];
  it.each(cases)("%s", (_name, history, expected) => {
    expect(restartsAfterStableRun(history, NOW, T)).toBe(expected);
  });
});

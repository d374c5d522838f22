import { describe, expect, it } from "vitest";
import { deriveStatus, type StatusFacts, watchdogStep } from "./sandbox-status";

const base: StatusFacts = {
  persisted: "running",
  now: 1_000,
  deadline: 2_000,
  watchdogAlive: true,
  anyProcessAlive: true,
  freezeHeld: false,
};

describe("deriveStatus", () => {
  const cases: Array<[string, Partial<StatusFacts>, string]> = [
    ["healthy", {}, "running"],
    ["healthy with no process yet", { anyProcessAlive: false }, "running"],
    ["frozen for a snapshot", { freezeHeld: true }, "snapshotting"],
    ["stopped on disk", { persisted: "stopped" }, "stopped"],
    ["failed on disk", { persisted: "failed" }, "failed"],
    ["stop in progress", { persisted: "stopping" }, "stopping"],
    [
      "stop abandoned half-way, nothing left",
      { persisted: "stopping", watchdogAlive: false, anyProcessAlive: false },
      "stopped",
    ],
    ["deadline passed, watchdog enforcing it", { now: 2_000 }, "stopping"],
    [
      "deadline passed while the machine was off",
      { now: 9_000, watchdogAlive: false, anyProcessAlive: false },
      "stopped",
    ],
    [
      "deadline passed, no watchdog, processes live on",
      { now: 9_000, watchdogAlive: false },
      "failed",
    ],
    ["watchdog died, processes unguarded", { watchdogAlive: false }, "failed"],
    [
      "watchdog died with everything else (reboot)",
      { watchdogAlive: false, anyProcessAlive: false },
      "stopped",
    ],
  ];
  it.each(cases)("%s", (_name, facts, expected) => {
    expect(deriveStatus({ ...base, ...facts })).toBe(expected);
  });
});

describe("watchdogStep", () => {
  it.each([
    ["directory gone", { persisted: null }, { kind: "exit" }],
    ["sandbox stopped", { persisted: "stopped" }, { kind: "exit" }],
    ["sandbox failed", { persisted: "failed" }, { kind: "exit" }],
    ["deadline reached", { now: 2_000 }, { kind: "expire" }],
    ["deadline passed during a stop", { persisted: "stopping", now: 5_000 }, { kind: "expire" }],
    ["deadline far: poll", { now: 0 }, { kind: "sleep", ms: 500 }],
    ["deadline near: wake exactly at it", { now: 1_900 }, { kind: "sleep", ms: 100 }],
  ] as const)("%s", (_name, facts, expected) => {
    const input = {
      persisted: "running" as const,
      now: 1_000,
      deadline: 2_000,
      pollMs: 500,
      ...facts,
    };
    expect(watchdogStep(input)).toEqual(expected);
  });
});

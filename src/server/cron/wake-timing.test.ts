import { describe, expect, it } from "vitest";
import type { InstanceState } from "../domain/instance-state";
import { INITIAL_STATE } from "../sandbox/state-cell";
import { planWakeChange, scheduledWakeAt } from "./wake-timing";

const state = (patch: Partial<InstanceState>): InstanceState => ({ ...INITIAL_STATE, ...patch });

describe("scheduledWakeAt", () => {
  it.each([
    ["no job", { status: "sleeping", cronDueAt: null }, null],
    ["sleeping: the lead time before", { status: "sleeping", cronDueAt: 100_000 }, 40_000],
    [
      "never started: the lead time before",
      { status: "uninitialized", cronDueAt: 100_000 },
      40_000,
    ],
    ["failed: the lead time before", { status: "failed", cronDueAt: 100_000 }, 40_000],
    ["running: at the due time", { status: "running", cronDueAt: 100_000 }, 100_000],
  ] as const)("%s", (_name, patch, expected) => {
    expect(scheduledWakeAt(state(patch), 60_000)).toBe(expected);
  });
});

describe("planWakeChange", () => {
  const NOW = 1_000;
  it.each([
    ["nothing wanted, nothing planned", null, null, { cancel: null, publish: null }],
    [
      "the same time is planned",
      5_000,
      { at: 5_000, messageId: "m1" },
      { cancel: null, publish: null },
    ],
    ["first plan", 5_000, null, { cancel: null, publish: 5_000 }],
    ["moved", 7_000, { at: 5_000, messageId: "m1" }, { cancel: "m1", publish: 7_000 }],
    ["no longer wanted", null, { at: 5_000, messageId: "m1" }, { cancel: "m1", publish: null }],
    [
      "the planned one was delivered already",
      7_000,
      { at: 500, messageId: "m1" },
      { cancel: null, publish: 7_000 },
    ],
  ] as const)("%s", (_name, want, planned, expected) => {
    expect(planWakeChange(want, planned, NOW)).toEqual(expected);
  });
});

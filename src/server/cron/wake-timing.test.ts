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
  it.each([
    ["nothing wanted, nothing planned", null, null, { cancel: null, publish: null }],
    ["the same time is planned", 5, { at: 5, messageId: "m1" }, { cancel: null, publish: null }],
    ["first plan", 5, null, { cancel: null, publish: 5 }],
    ["moved", 7, { at: 5, messageId: "m1" }, { cancel: "m1", publish: 7 }],
    ["no longer wanted", null, { at: 5, messageId: "m1" }, { cancel: "m1", publish: null }],
  ] as const)("%s", (_name, want, planned, expected) => {
    expect(planWakeChange(want, planned)).toEqual(expected);
  });
});

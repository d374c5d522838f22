import { describe, expect, it } from "vitest";
import { INSTANCE_STATUSES } from "../../domain/instance-state";
import { assertTransition, canTransition, IllegalTransitionError } from "./status-machine";

describe("status machine", () => {
  it.each([
    ["uninitialized", "creating"],
    ["creating", "starting"],
    ["starting", "running"],
    ["running", "snapshotting"],
    ["snapshotting", "stopping"],
    ["stopping", "sleeping"],
    ["sleeping", "creating"],
    ["snapshotting", "running"],
    ["running", "stopping"],
    ["stopping", "failed"],
    ["failed", "creating"],
    ["running", "sleeping"],
    ["starting", "creating"],
  ] as const)("allows %s → %s", (from, to) => {
    expect(canTransition(from, to)).toBe(true);
  });

  it.each([
    ["uninitialized", "running"],
    ["sleeping", "running"],
    ["running", "creating"],
    ["sleeping", "snapshotting"],
    ["failed", "running"],
  ] as const)("rejects %s → %s", (from, to) => {
    expect(canTransition(from, to)).toBe(false);
    expect(() => assertTransition(from, to)).toThrow(IllegalTransitionError);
  });

  it("never allows a status to transition to itself", () => {
    for (const s of INSTANCE_STATUSES) expect(canTransition(s, s)).toBe(false);
  });
});

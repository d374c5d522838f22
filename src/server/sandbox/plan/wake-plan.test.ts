import { describe, expect, it } from "vitest";
import { NOW, stateOf } from "../../../../tests/support/policy-fixtures";
import { alreadyRunning, planWake, type WakeFacts } from "./wake-plan";

const snaps = [{ id: "snap_3" }, { id: "snap_2" }, { id: "snap_1" }];
const restoring = { resumable: false, restoreAnySnapshot: true };
const resuming = { resumable: true, restoreAnySnapshot: false };
const asleep = (over = {}) => stateOf("sleeping", 0, 0, { sandboxId: null, ...over });
const facts = (over: Partial<WakeFacts>): WakeFacts => ({
  state: asleep(),
  capabilities: restoring,
  snapshots: [],
  request: {},
  ...over,
});

describe("planWake", () => {
  it.each<[string, Partial<WakeFacts>, ReturnType<typeof planWake>]>([
    ["first start", {}, { kind: "fresh", reason: "no saved state yet: first start" }],
    [
      "newest first, with fallbacks",
      { snapshots: snaps, state: asleep({ snapshotId: "snap_3" }) },
      { kind: "restore", candidates: ["snap_3", "snap_2", "snap_1"] },
    ],
    [
      "explicit fresh start ignores snapshots",
      { snapshots: snaps, request: { fresh: true } },
      { kind: "fresh", reason: "operator asked to start fresh" },
    ],
    [
      "wake from a chosen snapshot",
      { snapshots: snaps, request: { snapshotId: "snap_1" } },
      { kind: "restore", candidates: ["snap_1"] },
    ],
    [
      "chosen snapshot missing",
      { snapshots: snaps, request: { snapshotId: "snap_9" } },
      { kind: "refuse", reason: "snapshot snap_9 does not exist" },
    ],
    [
      "resumable provider: resume the agent's stopped sandbox",
      { capabilities: resuming, snapshots: snaps, state: asleep({ savedSandboxId: "clawrun-x" }) },
      { kind: "resume", sandboxId: "clawrun-x" },
    ],
    [
      "resumable provider, never started: create it",
      { capabilities: resuming },
      { kind: "fresh", reason: "no saved state yet: first start" },
    ],
    [
      "resumable provider, start fresh: create it anew",
      {
        capabilities: resuming,
        state: asleep({ savedSandboxId: "clawrun-x" }),
        request: { fresh: true },
      },
      { kind: "fresh", reason: "operator asked to start fresh" },
    ],
    [
      "resumable provider cannot wake from a chosen snapshot",
      { capabilities: resuming, snapshots: snaps, request: { snapshotId: "snap_1" } },
      {
        kind: "refuse",
        reason:
          "this provider resumes the agent's own sandbox; it cannot wake from a chosen snapshot",
      },
    ],
  ])("%s", (_n, over, expected) => {
    expect(planWake(facts(over))).toEqual(expected);
  });

  it("refuses to start empty over lost state unless the operator starts fresh", () => {
    const lost = { at: NOW, sandboxId: "sbx_1", snapshotId: null };
    const refused = planWake(facts({ state: asleep({ lost }) }));
    expect(refused.kind).toBe("refuse");
    expect(refused.kind === "refuse" && refused.reason).toMatch(/files were lost.*start fresh/);
    expect(planWake(facts({ state: asleep({ lost }), request: { fresh: true } })).kind).toBe(
      "fresh",
    );
    // A snapshot taken since (or an older one) is restored as usual.
    expect(planWake(facts({ state: asleep({ lost }), snapshots: [{ id: "snap_1" }] }))).toEqual({
      kind: "restore",
      candidates: ["snap_1"],
    });
  });

  it("refuses to start empty when the agent's snapshots have vanished", () => {
    const plan = planWake(facts({ state: asleep({ snapshotId: "snap_3" }) }));
    expect(plan.kind).toBe("refuse");
  });
});

describe("alreadyRunning", () => {
  it("is true only for a running instance with a sandbox and a plain wake", () => {
    const running = stateOf("running", 1, 10);
    expect(alreadyRunning(running, {})).toBe(true);
    expect(alreadyRunning(running, { fresh: true })).toBe(false);
    expect(alreadyRunning(running, { snapshotId: "s" })).toBe(false);
    expect(alreadyRunning(stateOf("starting", 1, 10), {})).toBe(false);
    expect(alreadyRunning({ ...running, sandboxId: null }, {})).toBe(false);
  });
});

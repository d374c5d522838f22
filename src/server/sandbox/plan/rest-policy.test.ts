import { describe, expect, it } from "vitest";
import { NOW, stateOf } from "../../../../tests/support/policy-fixtures";
import { type DeathFacts, planRestAfterDeath } from "./rest-policy";

const facts = (over: Partial<DeathFacts>): DeathFacts => ({
  state: stateOf("running", 10, 5),
  newestSnapshotId: null,
  changedSinceCreated: true,
  cause: "is stopped without ClawRun stopping it",
  now: NOW,
  ...over,
});

describe("planRestAfterDeath: where an instance rests after its sandbox died under it", () => {
  it("falls back to the newest snapshot loudly when the agent had unsaved work", () => {
    const plan = planRestAfterDeath(facts({ newestSnapshotId: "snap_2" }));
    expect(plan).toMatchObject({ status: "sleeping", lost: null });
    expect(plan.event?.type).toBe("state.rolled-back");
    expect(plan.event?.message).toMatch(/snap_2/);
  });

  it("goes to failed with the loss recorded when no snapshot holds any copy", () => {
    const plan = planRestAfterDeath(facts({}));
    expect(plan).toMatchObject({ status: "failed", lost: { at: NOW, sandboxId: "sbx_1" } });
    expect(plan.event?.type).toBe("state.lost");
  });

  it("treats unknown activity (no heartbeat) as unsaved work", () => {
    expect(planRestAfterDeath(facts({ changedSinceCreated: null })).status).toBe("failed");
  });

  it("rests quietly when nothing changed since the sandbox was created", () => {
    const plan = planRestAfterDeath(facts({ changedSinceCreated: false, newestSnapshotId: "s" }));
    expect(plan).toMatchObject({ status: "sleeping", event: null, lost: null });
    expect(planRestAfterDeath(facts({ changedSinceCreated: false })).status).toBe("uninitialized");
  });

  it.each([
    ["creating", "uninitialized"],
    ["starting", "uninitialized"],
    ["stopping", "sleeping"],
  ] as const)("a sandbox lost while %s held no agent work → %s, quietly", (from, rest) => {
    const plan = planRestAfterDeath(
      facts({
        state: stateOf(from, 1, 5),
        newestSnapshotId: from === "stopping" ? "snap_1" : null,
      }),
    );
    expect(plan).toMatchObject({ status: rest, event: null });
  });

  it("counts a snapshot the state names even when the provider listed none", () => {
    const plan = planRestAfterDeath(
      facts({ state: stateOf("snapshotting", 10, 5, { snapshotId: "snap_0" }) }),
    );
    expect(plan.status).toBe("sleeping");
    expect(plan.event?.type).toBe("state.rolled-back");
  });
});

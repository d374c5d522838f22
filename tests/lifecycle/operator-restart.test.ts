import { afterEach, describe, expect, it } from "vitest";
import { type LifecycleHarness, lifecycleHarness } from "../support/lifecycle-harness";

/**
 * "Start fresh" and "wake from this snapshot" on a running agent snapshot it first. The
 * dialog promises the snapshots are kept: that extra snapshot must not make retention delete
 * any (least of all the one chosen to wake from). Real sqlite, local provider, sidecar.
 */

let h: LifecycleHarness | null = null;
afterEach(async () => {
  await h?.stop();
  h = null;
});

const ids = async () => (await (h as LifecycleHarness).provider.listSnapshots()).map((s) => s.id);

describe("operator restart keeps the snapshots it promises to keep", () => {
  it("wakes from the oldest snapshot while running, with retention at one snapshot", async () => {
    h = await lifecycleHarness({ timings: { snapshotsKept: 1 } });
    expect((await h.manager.wake({ reason: "first", trigger: "operator" })).status).toBe("running");
    expect((await h.manager.sleep("test: sleep")).status).toBe("sleeping");
    const [chosen] = await ids();
    expect(chosen).toBeTruthy();
    expect((await h.manager.wake({ reason: "again", trigger: "operator" })).status).toBe("running");

    // Running now; the operator picks the only (and oldest) snapshot.
    const woke = await h.manager.wake({
      reason: "operator: wake from snapshot",
      trigger: "operator",
      snapshotId: chosen,
    });
    expect(woke).toMatchObject({ status: "running" });
    const state = await h.status();
    expect(state.status).toBe("running");
    const restored = (await h.events("status.running"))[0];
    expect(restored?.message).toContain(`restored from ${chosen}`);
    // The chosen snapshot and the one of the sandbox that was running are both still there.
    const after = await ids();
    expect(after).toContain(chosen);
    expect(after).toHaveLength(2);
    expect((await h.events("snapshot.deleted")).length).toBe(0);
  }, 60_000);

  it("starts fresh while running and deletes no snapshot", async () => {
    h = await lifecycleHarness({ timings: { snapshotsKept: 1 } });
    await h.manager.wake({ reason: "first", trigger: "operator" });
    await h.manager.sleep("test: sleep");
    await h.manager.wake({ reason: "again", trigger: "operator" });
    const before = await ids();
    expect(before).toHaveLength(1);

    const woke = await h.manager.wake({ reason: "fresh", trigger: "operator", fresh: true });
    expect(woke).toMatchObject({ status: "running" });
    const after = await ids();
    for (const id of before) expect(after).toContain(id);
    expect(after).toHaveLength(2);
    expect((await h.events("snapshot.deleted")).length).toBe(0);
  }, 60_000);
});

describe("a wake the plan refuses is refused at once, in words", () => {
  it("answers 409 with the reason instead of 202 and a silent failed → failed", async () => {
    const { startAction } = await import("../../src/server/operator/actions");
    h = await lifecycleHarness();
    await h.manager.wake({ reason: "first", trigger: "operator" });
    await h.manager.sleep("test: sleep");
    const gone = (await h.status()).snapshotId as string;
    await h.provider.deleteSnapshot(gone);
    const before = await h.status();

    const answer = await startAction(h.ctx, {});
    expect(answer).toBeInstanceOf(Response);
    const res = answer as Response;
    expect(res.status).toBe(409);
    const body = await res.json();
    expect(body.error.code).toBe("cannot_wake");
    expect(body.error.message).toContain(`snapshot ${gone} no longer exists`);
    // Refused: nothing changed.
    expect(await h.status()).toEqual(before);
  }, 60_000);
});

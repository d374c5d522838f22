import { afterEach, describe, expect, it } from "vitest";
import { runWorker, workerRequestSchema } from "../../src/server/operator/workers";
import { type LifecycleHarness, lifecycleHarness } from "../support/lifecycle-harness";

let h: LifecycleHarness | null = null;
afterEach(async () => {
  await h?.stop();
  h = null;
});

const worker = (over: Record<string, unknown>) =>
  runWorker((h as LifecycleHarness).ctx, workerRequestSchema.parse(over));

describe("worker sandboxes", () => {
  it("runs a command on a copy of the agent's files and leaves the agent's state alone", async () => {
    h = await lifecycleHarness({ config: { sandbox: { activeDuration: 60 } } });
    await h.manager.wake({ reason: "test", trigger: "operator" });
    const agent = await h.provider.get((await h.status()).sandboxId as string);
    await agent.writeFiles([{ path: "notes.txt", content: "remember the milk\n" }]);
    expect((await h.manager.sleep("test")).status).toBe("sleeping");
    const before = await h.status();

    const r = await worker({
      command: "sh",
      args: ["-c", "cat notes.txt; echo changed > notes.txt; echo oops >&2; exit 3"],
    });
    expect(r).toMatchObject({
      exitCode: 3,
      timedOut: false,
      stdout: "remember the milk\n",
      stderr: "oops\n",
      snapshotId: before.snapshotId,
    });
    expect((await h.provider.get(r.sandboxId)).status).toBe("stopped");
    expect(await h.status()).toEqual(before);
    // The agent wakes with its own files, not the worker's change.
    await h.manager.wake({ reason: "test", trigger: "operator" });
    const woke = await h.provider.get((await h.status()).sandboxId as string);
    expect((await woke.readFile("notes.txt"))?.toString()).toBe("remember the milk\n");
    expect((await h.events("worker.finished"))[0]?.message).toMatch(/exited 3/);
  }, 60_000);

  it("stops a command that runs out of its time, and the tick leaves a running worker alone", async () => {
    h = await lifecycleHarness({ config: { sandbox: { activeDuration: 60 } } });
    await h.manager.wake({ reason: "test", trigger: "operator" });
    expect((await h.manager.sleep("test")).status).toBe("sleeping");
    const run = worker({ command: "sleep", args: ["30"], timeoutSeconds: 2 });
    await new Promise((r) => setTimeout(r, 800));
    const report = await h.manager.tick();
    expect(report.actions).not.toContain("stop-orphans");
    const r = await run;
    expect(r).toMatchObject({ exitCode: null, timedOut: true });
    expect((await h.provider.get(r.sandboxId)).status).toBe("stopped");
  }, 60_000);

  it("refuses without a snapshot to start from, and names a missing one", async () => {
    h = await lifecycleHarness();
    await expect(worker({ command: "true" })).rejects.toMatchObject({
      status: 409,
      code: "no_snapshot",
    });
    await expect(worker({ command: "true", snapshotId: "snap_nope" })).rejects.toMatchObject({
      status: 404,
      message: "snapshot snap_nope does not exist",
    });
    expect((await h.provider.list()).length).toBe(0);
  });
});

import { spawn } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { TRANSITIONAL } from "../../src/server/sandbox/plan/status-machine";
import { waitFor } from "../support/free-port";
import { type LifecycleHarness, lifecycleHarness } from "../support/lifecycle-harness";

let h: LifecycleHarness | null = null;
afterEach(async () => {
  await h?.stop();
  h = null;
});

const status = async () => (h as LifecycleHarness).status();
const events = async (type: string) => (h as LifecycleHarness).events(type);

describe("reconcile tick (real sqlite, local provider, sidecar)", () => {
  it("repairs a start whose server died mid-way (killed process, expired lock)", async () => {
    h = await lifecycleHarness({ timings: { lockLeaseMs: 1_500 } });
    const child = spawn(
      process.execPath,
      ["--import", "tsx", "tests/fixtures/wake-in-child.ts", JSON.stringify(h.params)],
      {
        stdio: "ignore",
      },
    );
    await waitFor(
      "the child to be mid-start",
      async () => (await status())?.status === "starting",
      20_000,
      10,
    );
    child.kill("SIGKILL");
    await new Promise((r) => child.once("exit", r));
    expect((await status())?.status).toBe("starting");

    // While the dead server's lease lasts, nobody may touch the instance.
    expect((await h.manager.tick()).ran).toBe(false);
    await new Promise((r) => setTimeout(r, 1_600));
    const report = await h.manager.tick();
    expect(report.actions).toContain("repair");
    const after = await status();
    expect(TRANSITIONAL.has(after?.status ?? "creating")).toBe(false);
    // The sidecar was launched before the kill, so the sandbox is healthy and kept.
    expect(after?.status).toBe("running");
    expect((await h.provider.get(after?.sandboxId as string)).status).toBe("running");
    expect((await events("status.running")).at(0)?.message).toMatch(
      /repaired: starting was interrupted/,
    );
  });

  it("marks a sandbox killed by its native TTL as sleeping and re-registers wake hooks", async () => {
    // activeDuration 1 s × a TTL multiplier of 4 → native TTL 4 s (a 2 s extend buffer keeps
    // the floor below that), room for the wake and the snapshot before it fires; with the
    // parent down no heartbeat can extend it.
    h = await lifecycleHarness({
      config: { sandbox: { activeDuration: 1 } },
      timings: { ttlBufferMs: 2_000, ttlMultiplier: 4 },
    });
    expect((await h.manager.wake({ reason: "test", trigger: "operator" })).status).toBe("running");
    await h.setParentUp(false);
    const snap = await h.manager.snapshotNow();
    expect(snap).toHaveProperty("id");
    const sandboxId = (await status())?.sandboxId as string;
    await waitFor(
      "the TTL to fire",
      async () => (await h?.provider.get(sandboxId))?.status === "stopped",
      20_000,
      200,
    );
    expect((await status())?.status).toBe("running"); // the store does not know yet

    const report = await h.manager.tick();
    expect(report.actions).toEqual(["mark-dead"]);
    const after = await status();
    expect(after).toMatchObject({
      status: "sleeping",
      sandboxId: null,
      hooksRegistered: true,
      snapshotId: (snap as { id: string }).id,
    });
    expect(h.hook.calls.at(-1)).toBe("register");
    expect((await events("status.sleeping"))[0]).toMatchObject({ level: "warn" });
    expect((await h.store.awake.list(0)).length).toBe(1);
  });

  it("creates exactly one sandbox for 20 concurrent wakes from 20 server instances", async () => {
    h = await lifecycleHarness();
    const managers = await Promise.all(
      Array.from({ length: 20 }, () => (h as LifecycleHarness).newManager()),
    );
    const outcomes = await Promise.all(
      managers.map((m) => m?.wake({ reason: "concurrent", trigger: "operator" })),
    );
    const running = (await h.provider.list()).filter((s) => s.status === "running");
    expect(running).toHaveLength(1);
    expect(await events("status.creating")).toHaveLength(1);
    for (const o of outcomes) {
      expect(o?.status === "running" || o?.status === "already-running").toBe(true);
      expect(o && "sandboxId" in o ? o.sandboxId : null).toBe(running[0]?.id);
    }
  });

  it("stops sandboxes the instance no longer owns", async () => {
    h = await lifecycleHarness();
    expect((await h.manager.wake({ reason: "test", trigger: "operator" })).status).toBe("running");
    const orphan = await h.provider.create({
      timeoutMs: 60_000,
      ports: [3000],
      labels: { instance: "clawrun" },
    });
    const foreign = await h.provider.create({
      timeoutMs: 60_000,
      ports: [3000],
      labels: { instance: "someone-else" },
    });
    const report = await h.manager.tick();
    expect(report.actions).toEqual(["stop-orphans"]);
    expect((await h.provider.get(orphan.id)).status).toBe("stopped");
    expect((await h.provider.get(foreign.id)).status).toBe("running");
    expect((await status())?.status).toBe("running");
    await foreign.stop();
  });

  it("wakes a sleeping agent before a cron job and delivers the job's message when due", async () => {
    h = await lifecycleHarness({
      config: {
        sandbox: { cronWakeLeadTime: 5 },
        cron: [{ name: "ping", schedule: "*/4 * * * * *", message: "cron ping" }],
      },
    });
    // The job is due within 4 s, inside the 5 s lead time: the tick wakes the agent for it.
    expect((await h.manager.tick()).actions).toEqual(["wake"]);
    expect((await status())?.status).toBe("running");
    const schedule = await h.store.schedule.get();
    expect(schedule?.nextJob).toBe("ping");
    expect((await status())?.cronDueAt).toBe(schedule?.nextDueAt);
    await waitFor("the job to be due", async () => Date.now() >= (schedule?.nextDueAt ?? 0), 6_000);
    expect((await h.manager.tick()).actions).toEqual(["run-cron"]);
    const sandbox = await h.provider.get((await status())?.sandboxId as string);
    const file = (await sandbox.readFile("conversations/cron%3Aping.jsonl"))?.toString() ?? "";
    expect(JSON.parse(file.trim().split("\n")[0] as string)).toMatchObject({ text: "cron ping" });
    expect((await h.store.schedule.get())?.lastRun.ping).toBe(schedule?.nextDueAt);

    // Jobs the agent asks for (the echo agent reads cron.json) are learned while it is awake.
    await sandbox.writeFiles([
      {
        path: "cron.json",
        content: JSON.stringify({
          jobs: [{ name: "own", schedule: "0 3 * * *", message: "nightly" }],
        }),
      },
    ]);
    await h.manager.tick();
    expect((await h.store.schedule.get())?.agentJobs).toEqual([
      { name: "own", schedule: "0 3 * * *", message: "nightly" },
    ]);
    expect(Object.keys((await h.store.schedule.get())?.lastRun ?? {}).sort()).toEqual([
      "agent:own",
      "ping",
    ]);
  });
});

import { readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CommandAgent } from "../../src/server/agents/command/command-agent";
import type { CommandAgentConfig } from "../../src/server/agents/command/config";
import { parseClawrunConfig } from "../../src/server/compose/config-schema";
import type { ManagedSandbox, SandboxProvider } from "../../src/server/providers/types";
import { waitFor } from "../support/free-port";
import { type LifecycleHarness, lifecycleHarness } from "../support/lifecycle-harness";

let h: LifecycleHarness | null = null;
afterEach(async () => {
  await h?.stop();
  h = null;
});

const status = async () => (h as LifecycleHarness).status();
const events = async (type: string) => (h as LifecycleHarness).events(type);

describe("lifecycle: start, extend, sleep, wake (real sqlite, local provider, sidecar, echo agent)", () => {
  it("keeps an active agent awake, snapshots and stops it when idle, and restores its files on wake", async () => {
    h = await lifecycleHarness({
      // 4 s, not 2: on a loaded 2-core machine a heartbeat took seconds to be handled, and the
      // server (rightly) read that as idle time.
      config: { sandbox: { activeDuration: 4 } },
      // A buffer far above any TTL: every heartbeat with a reason extends, so lastExtend tracks it.
      timings: { ttlBufferMs: 1e9, extendByMs: 1_000 },
    });
    const woke = await h.manager.wake({ reason: "test start", trigger: "operator" });
    expect(woke.status).toBe("running");
    const running = await status();
    expect(running?.status).toBe("running");
    const timings = (await events("status.running"))[0]?.details.timings as Record<string, number>;
    for (const phase of ["lockMs", "createMs", "provisionMs", "sidecarStartMs", "healthyMs"])
      expect(timings[phase]).toBeGreaterThanOrEqual(0);
    expect(h.hook.calls).toEqual(["teardown"]);

    // File activity for twice the active duration (27 writes 0.3 s apart: over 8 s): the agent
    // must stay awake and be extended.
    const sandbox = await h.provider.get(running?.sandboxId as string);
    const deadline0 = running?.ttlDeadline as number;
    // One loop inside the sandbox writes every 0.3 s: a command spawned per write took longer
    // than activeDuration on a loaded machine, and the gap itself was (rightly) read as idle.
    await sandbox.runCommand("sh", [
      "-c",
      "mkdir -p work; i=0; while [ $i -lt 27 ]; do date +%s%N >> work/activity.log; sleep 0.3; i=$((i+1)); done",
    ]);
    const active = await status();
    expect(active?.status).toBe("running");
    expect(active?.lastExtend?.reason).toBe("file-activity");
    expect(active?.ttlDeadline).toBeGreaterThan(deadline0);

    // Idle: no file changes for activeDuration → snapshot + stop.
    await waitFor("sleeping", async () => (await status())?.status === "sleeping", 20_000, 20);
    const asleep = await status();
    expect(asleep?.snapshotId).toMatch(/^snap_/);
    expect(asleep?.sandboxId).toBeNull();
    expect(h.hook.calls.at(-1)).toBe("register");
    expect(sandbox.status).toBe("stopped");
    // The stopped sandbox's files are gone; only the snapshot holds them now.
    await expect(sandbox.readFile("work/activity.log")).rejects.toThrow(/stopped/);

    const again = await h.manager.wake({ reason: "message", trigger: "operator" });
    expect(again.status).toBe("running");
    const restored = await h.provider.get((await status())?.sandboxId as string);
    const log = (await restored.readFile("work/activity.log"))?.toString() ?? "";
    expect(log.trim().split("\n").length).toBeGreaterThan(5);
    expect((await status())?.snapshotId).toBe(asleep?.snapshotId);
  }, 60_000);

  it("keeps only the newest 3 snapshots", async () => {
    h = await lifecycleHarness({ config: { sandbox: { activeDuration: 60 } } });
    for (let i = 0; i < 5; i++) {
      expect((await h.manager.wake({ reason: `cycle ${i}`, trigger: "operator" })).status).toBe(
        "running",
      );
      const slept = await h.manager.sleep(`cycle ${i}`);
      expect(slept.status).toBe("sleeping");
    }
    const snaps = await h.provider.listSnapshots();
    expect(snaps).toHaveLength(3);
    expect(snaps[0]?.id).toBe((await status())?.snapshotId);
    expect(await events("snapshot.deleted")).toHaveLength(2);
  });

  it("restores the next newest snapshot when the newest cannot be, and refuses to start empty when none can", async () => {
    h = await lifecycleHarness({ config: { sandbox: { activeDuration: 60 } } });
    for (let i = 0; i < 2; i++) {
      await h.manager.wake({ reason: `cycle ${i}`, trigger: "operator" });
      const sandbox = await h.provider.get((await status())?.sandboxId as string);
      await sandbox.writeFiles([{ path: "generation.txt", content: String(i) }]);
      await h.manager.sleep(`cycle ${i}`);
    }
    const [newest, older] = await h.provider.listSnapshots();
    const corrupt = (id: string) => {
      const dir = join(h?.stateDir as string, "snapshots", id);
      for (const f of readdirSync(dir).filter((n) => n.startsWith("archive")))
        writeFileSync(join(dir, f), "not an archive");
    };
    corrupt(newest?.id as string);
    expect((await h.manager.wake({ reason: "wake", trigger: "operator" })).status).toBe("running");
    const restored = await h.provider.get((await status())?.sandboxId as string);
    expect((await restored.readFile("generation.txt"))?.toString()).toBe("0");
    expect((await status())?.snapshotId).toBe(older?.id);
    expect((await events("sandbox.create-failed"))[0]?.message).toMatch(
      new RegExp(`restore of snapshot ${newest?.id} failed`),
    );

    await h.manager.sleep("again"); // a third snapshot, then break every one of them
    for (const snap of await h.provider.listSnapshots()) corrupt(snap.id);
    const outcome = await h.manager.wake({ reason: "wake", trigger: "operator" });
    expect(outcome.status).toBe("failed");
    const failed = await status();
    expect(failed?.status).toBe("failed");
    expect(failed?.error).toMatch(/none of 3 snapshot\(s\) could be restored/);
    expect((await h.provider.list()).filter((s) => s.status === "running")).toHaveLength(0);
  });

  it("stops a sandbox whose daemon crash-loops and reports it failed", async () => {
    // Listens long enough to pass the start health check, then crashes on every run; the
    // restarted runs crash at once (a marker in its home says it ran), so the five restarts the
    // supervisor allows take about a second, not five times the first run.
    const script = [
      "const fs = require('fs'), marker = (process.env.HOME || '.') + '/crashed-once';",
      "const again = fs.existsSync(marker); fs.writeFileSync(marker, '');",
      "require('http').createServer((q,s)=>s.end()).listen(process.env.PORT);",
      "setTimeout(()=>process.exit(3), again ? 0 : 1200);",
    ].join(" ");
    const config = parseClawrunConfig({
      agent: { type: "command", command: "node", args: ["-e", script] },
    });
    h = await lifecycleHarness({
      agent: new CommandAgent(config.agent as CommandAgentConfig, {}, process.cwd()),
      config: { sandbox: { activeDuration: 60 } },
      sidecarTimings: { restartDelayMs: 50, probeIntervalMs: 100 },
    });
    expect((await h.manager.wake({ reason: "test", trigger: "operator" })).status).toBe("running");
    const sandboxId = (await status())?.sandboxId as string;
    await waitFor("failed", async () => (await status())?.status === "failed", 30_000, 20);
    const failed = await status();
    expect(failed?.error).toMatch(/daemon failed after 5 restarts/);
    expect(failed?.sandboxId).toBeNull();
    expect((await h.provider.get(sandboxId)).status).toBe("stopped");
    expect((await events("daemon.restarted")).length).toBeGreaterThan(0);
    expect(h.heartbeats.some((b) => b.action === "stop")).toBe(true);
  });

  it("keeps the sandbox running when its snapshot fails 3 times", async () => {
    h = await lifecycleHarness({
      config: { sandbox: { activeDuration: 60 } },
      timings: { snapshotRetryDelayMs: 50 },
      wrapProvider: failingSnapshots,
    });
    expect((await h.manager.wake({ reason: "test", trigger: "operator" })).status).toBe("running");
    const sandboxId = (await status())?.sandboxId as string;
    const outcome = await h.manager.sleep("test idle");
    expect(outcome).toMatchObject({ status: "kept-running" });
    const st = await status();
    expect(st?.status).toBe("running");
    expect(st?.sandboxId).toBe(sandboxId);
    expect(st?.error).toMatch(/snapshot failed 3 times \(disk full \(injected\)\)/);
    expect(await events("snapshot.attempt-failed")).toHaveLength(3);
    expect((await h.provider.get(sandboxId)).status).toBe("running");
  });
});

/** Fault injection at the provider: every snapshot() throws, everything else is real. */
function failingSnapshots(inner: SandboxProvider): SandboxProvider {
  const wrap = (sb: ManagedSandbox): ManagedSandbox =>
    new Proxy(sb, {
      get(target, prop) {
        if (prop === "snapshot")
          return async () => Promise.reject(new Error("disk full (injected)"));
        const value = Reflect.get(target, prop, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  return new Proxy(inner, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (prop === "create" || prop === "get")
        return async (...args: unknown[]) => wrap(await value.apply(target, args));
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

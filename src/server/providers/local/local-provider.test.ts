import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import pino from "pino";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import type { CreateSandboxOptions, ManagedSandbox } from "../types";
import { ProviderError, UnsupportedNetworkPolicyError } from "../types";
import { type HostEnv, sandboxEnv } from "./commands";
import { isSandboxId, isSnapshotId, newSandboxId, newSnapshotId } from "./ids";
import { LocalProvider, stoppedToPrune, validateCreateOptions } from "./local-provider";
import { isLiveState, readStat } from "./proc";
import { processIdentitySchema, readJson, sandboxLayout } from "./sandbox-meta";

const stateDir = mkdtempSync(join(tmpdir(), "clawrun-local-"));
const logger = pino({ level: "silent" });
const provider = new LocalProvider({ stateDir, logger, killGraceMs: 300, watchdogPollMs: 50 });
const made: ManagedSandbox[] = [];
const create = async (opts: Partial<CreateSandboxOptions> = {}) => {
  const s = await provider.create({ timeoutMs: 60_000, ports: [3000], ...opts });
  made.push(s);
  return s;
};
const layoutOf = (s: ManagedSandbox) => sandboxLayout(join(stateDir, "sandboxes", s.id));
const alive = (pid: number) => {
  const stat = readStat(pid);
  return stat !== null && isLiveState(stat.state);
};
async function waitFor(what: string, cond: () => boolean, ms = 5_000): Promise<void> {
  const until = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}
function watchdogPid(s: ManagedSandbox): number {
  const id = readJson(layoutOf(s).watchdog, processIdentitySchema);
  if (!id) throw new Error("no watchdog.json");
  return id.pid;
}

afterEach(async () => {
  await Promise.allSettled(made.splice(0).map((s) => s.stop()));
});
afterAll(() => {
  spawnSync("chmod", ["-R", "u+w", stateDir]); // layers are read-only
  rmSync(stateDir, { recursive: true, force: true });
});

describe("local sandbox status after the unexpected", () => {
  it("reports failed when the watchdog died but processes run unguarded, stopped after stop()", async () => {
    const s = await create();
    const { pid } = await s.runCommand({ cmd: "sleep", args: ["60"], detached: true });
    process.kill(watchdogPid(s), "SIGKILL");
    await waitFor("the watchdog to die", () => s.status !== "running");
    expect(s.status).toBe("failed");
    await s.stop();
    expect(s.status).toBe("stopped");
    expect(alive(pid as number)).toBe(false);
  });

  it("reports stopped when the watchdog died along with everything else", async () => {
    const s = await create();
    process.kill(watchdogPid(s), "SIGKILL");
    await waitFor("the watchdog to die", () => s.status !== "running");
    expect(s.status).toBe("stopped");
  });

  it("thaws processes left frozen by a snapshot taker that died", async () => {
    const s = await create();
    const { pid } = await s.runCommand({ cmd: "sleep", args: ["60"], detached: true });
    const leader = pid as number;
    // A taker that no longer exists: this pid with a start time it never had.
    const self = readStat(process.pid);
    writeFileSync(
      layoutOf(s).freeze,
      JSON.stringify({ pid: process.pid, startTime: (self?.startTime ?? 0) + 1 }),
    );
    process.kill(-leader, "SIGSTOP");
    await waitFor("the watchdog to thaw the group", () => readStat(leader)?.state === "S");
    expect(s.status).toBe("running");
  });
});

describe("local commands", () => {
  it("returns when the command exits even if a background child keeps its pipes open", async () => {
    const s = await create();
    const res = await s.runCommand("sh", ["-c", "sleep 60 & echo $!"]);
    expect(res.exitCode).toBe(0);
    const orphan = Number(res.stdout);
    expect(alive(orphan)).toBe(true);
    await s.stop(); // the orphan belongs to the sandbox: stop() reaches it too
    expect(alive(orphan)).toBe(false);
  });

  it("kills a foreground command and its children when its signal aborts", async () => {
    const s = await create();
    const started = Date.now();
    const run = s.runCommand({
      cmd: "sh",
      args: ["-c", "sleep 60 & echo $! > child.pid; wait"],
      signal: AbortSignal.timeout(500),
    });
    await expect(run).rejects.toMatchObject({ name: "TimeoutError" });
    expect(Date.now() - started).toBeLessThan(5_000);
    const child = Number((await s.readFile("child.pid"))?.toString());
    await waitFor("the child to die", () => !alive(child));
    // An already-aborted signal runs nothing.
    await expect(
      s.runCommand({ cmd: "touch", args: ["never"], signal: AbortSignal.abort() }),
    ).rejects.toMatchObject({ name: "AbortError" });
    expect(await s.readFile("never")).toBeNull();
  });

  it("reports the signal of a killed command as 128 + N", async () => {
    const s = await create();
    expect((await s.runCommand("sh", ["-c", "kill -TERM $$"])).exitCode).toBe(143);
  });

  it("fails clearly for a missing program or a cwd that is not a directory", async () => {
    const s = await create();
    await expect(s.runCommand("definitely-not-a-program-xyz")).rejects.toBeInstanceOf(
      ProviderError,
    );
    await s.writeFiles([{ path: "file", content: "x" }]);
    await expect(s.runCommand({ cmd: "true", cwd: "file" })).rejects.toThrow(/not a directory/);
  });

  it("keeps the server's environment out of the sandbox", () => {
    const env = sandboxEnv(
      "/sbx",
      { CLAWRUN_PORT_3000: "23456" },
      { EXTRA: "1" },
      // Even a host env carrying more than the basics must not pass it on.
      {
        PATH: "/usr/bin",
        LANG: "en_US.UTF-8",
        CLAWRUN_ADMIN_SECRET: "top-secret",
      } as HostEnv,
    );
    expect(env).toEqual({
      PATH: "/sbx/.local/bin:/usr/bin",
      LANG: "en_US.UTF-8",
      HOME: "/sbx",
      CLAWRUN_PORT_3000: "23456",
      EXTRA: "1",
    });
  });
});

describe("local ports: exposed vs internal (the daemon's, behind the sidecar's door)", () => {
  it("gives an internal port a host port of its own but never maps nor advertises it", async () => {
    const a = await create({ ports: [3001], internalPorts: [3000] });
    const b = await create({ ports: [3001], internalPorts: [3000] });
    for (const s of [a, b]) {
      expect(s.domain(3001)).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(() => s.domain(3000)).toThrow(/port 3000 of sandbox .* is internal/);
      expect(Object.keys(s.baseEnv).sort()).toEqual([
        "CLAWRUN_LISTEN_HOST",
        "CLAWRUN_PORT_3000",
        "CLAWRUN_PORT_3001",
      ]);
      expect(s.baseEnv.CLAWRUN_LISTEN_HOST).toBe("127.0.0.1");
    }
    // Read back from disk by another provider object (e.g. after a server restart): same answer.
    const again = await new LocalProvider({ stateDir, logger }).get(a.id);
    expect(() => again.domain(3000)).toThrow(/internal/);
    expect(again.baseEnv).toEqual(a.baseEnv);
    const hostPorts = [a, b].flatMap((s) => [
      s.baseEnv.CLAWRUN_PORT_3000,
      s.baseEnv.CLAWRUN_PORT_3001,
    ]);
    expect(new Set(hostPorts).size).toBe(4);
  });
});

describe("local provider housekeeping", () => {
  it("records the archive format of a snapshot", async () => {
    const s = await create();
    const { id } = await s.snapshot();
    const meta = JSON.parse(readFileSync(join(stateDir, "snapshots", id, "meta.json"), "utf8"));
    expect(["tar.zst", "tar.gz"]).toContain(meta.format);
    await provider.deleteSnapshot(id);
  });

  it("checks that the state dir is writable", async () => {
    await expect(provider.check()).resolves.toBeUndefined();
    const file = join(stateDir, "a-file");
    writeFileSync(file, "");
    const broken = new LocalProvider({ stateDir: join(file, "state"), logger });
    await expect(broken.check()).rejects.toThrow(/not writable/);
  });

  it("fails create without leaving a sandbox behind when the watchdog cannot start", async () => {
    const before = (await provider.list()).length;
    const noBundle = new LocalProvider({
      stateDir,
      logger,
      watchdogBundle: join(stateDir, "missing.js"),
    });
    await expect(noBundle.create({ timeoutMs: 1_000, ports: [] })).rejects.toThrow(
      /npm run bundle/,
    );
    expect((await provider.list()).length).toBe(before);
  });

  it("does not wait for the watchdog to boot, and a watchdog that dies at boot leaves the sandbox not running", async () => {
    const crashing = join(stateDir, "crashing-watchdog.js");
    writeFileSync(crashing, "process.exit(1)");
    const broken = new LocalProvider({ stateDir, logger, watchdogBundle: crashing });
    const s = await broken.create({ timeoutMs: 60_000, ports: [] });
    made.push(s);
    // Its identity is recorded at spawn (pid + start time), before its Node.js has booted.
    expect(readJson(layoutOf(s).watchdog, processIdentitySchema)).not.toBeNull();
    await waitFor(
      "the unguarded sandbox to stop counting as running",
      () => s.status !== "running",
    );
    expect(["stopped", "failed"]).toContain(s.status);
  });

  it.each([
    [{ networkPolicy: "deny-all" as const }, UnsupportedNetworkPolicyError],
    [{ networkPolicy: { allow: ["example.com"] } }, UnsupportedNetworkPolicyError],
    [{ timeoutMs: 0 }, ProviderError],
    [{ timeoutMs: 1.5 }, ProviderError],
    [{ ports: [70_000] }, ProviderError],
    [{ internalPorts: [0] }, ProviderError],
    [{ internalPorts: [3000] }, ProviderError], // both exposed and internal
  ])("refuses create options %j", (opts, error) => {
    expect(() => validateCreateOptions({ timeoutMs: 1_000, ports: [3000], ...opts })).toThrow(
      error,
    );
  });

  it("makes well-formed, time-sortable ids", () => {
    expect(isSandboxId(newSandboxId())).toBe(true);
    expect(isSnapshotId(newSnapshotId())).toBe(true);
    expect(newSnapshotId(1_000) < newSnapshotId(2_000)).toBe(true);
    expect(isSandboxId("sbx_../../etc")).toBe(false);
  });
});

describe("stoppedToPrune", () => {
  const s = (id: string, status: "running" | "stopped" | "failed", createdAt: number) => ({
    id,
    status,
    createdAt,
    labels: {},
  });
  it.each([
    ["keeps everything within the limit", [s("a", "stopped", 1), s("b", "stopped", 2)], 2, []],
    [
      "drops the oldest stopped beyond it",
      [s("a", "stopped", 1), s("b", "stopped", 3), s("c", "stopped", 2)],
      2,
      ["a"],
    ],
    [
      "never touches running or failed ones",
      [s("a", "running", 1), s("b", "failed", 2), s("c", "stopped", 3)],
      0,
      ["c"],
    ],
  ] as const)("%s", (_n, list, keep, expected) => {
    expect(stoppedToPrune(list, keep)).toEqual(expected);
  });
});

describe("shared layers on the local provider", () => {
  it("declares them, and a mounted layer is a link: the snapshot holds the link, never the layer's files", async () => {
    expect(provider.capabilities.sharedLayers).toBe(true);
    const layer = await provider.layers.ensure({
      name: "demo",
      inputs: { v: "1" },
      build: ["mkdir -p bin && head -c 65536 /dev/urandom > bin/big && echo hi > bin/small"],
      mountAt: ".clawrun/layer",
    });
    const s = await create();
    // An older in-sandbox install at the mount point is replaced by the link.
    await s.writeFiles([{ path: ".clawrun/layer/old-install/file", content: "x" }]);
    await s.mountLayer?.(layer.dir, ".clawrun/layer");
    const seen = await s.runCommand({ cmd: "cat", args: [".clawrun/layer/bin/small"] });
    expect(seen.stdout).toBe("hi\n");
    const snap = await s.snapshot();
    const restored = await create({ snapshotId: snap.id });
    const listing = await restored.runCommand({
      cmd: "sh",
      args: ["-c", "ls -la .clawrun; test -e .clawrun/layer/old-install && echo OLD"],
    });
    expect(listing.stdout).toContain(`layer -> ${layer.dir}`);
    expect(listing.stdout).not.toContain("OLD");
    const sizeBytes = (await provider.listSnapshots()).find((x) => x.id === snap.id)?.sizeBytes;
    expect(sizeBytes).toBeLessThan(16 * 1024); // the 64 KiB random file stayed in the layer
    await expect(s.mountLayer?.(layer.dir, "../outside")).rejects.toThrow();
  });
});

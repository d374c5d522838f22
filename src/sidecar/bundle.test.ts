/**
 * End to end through the real bundle (build/bundles/sidecar.js, built by the vitest global
 * setup), copied into an empty directory so nothing can come from node_modules, and run as
 * the server runs it: `node sidecar.js config.json`, detached, secret in the environment.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  type BundledSidecar,
  doorFetch,
  fetchHealth,
  LISTENING_DAEMON,
  nodeDaemon,
  processAlive,
  removeDir,
  runBundledSidecar,
  sleep,
  startParent,
  type TestParent,
  tempDir,
  waitFor,
} from "../../tests/support/sidecar-harness";
import { parseSidecarHealth, type SidecarHealth } from "../protocol/health";
import { type HeartbeatBody, parseHeartbeatBody } from "../protocol/heartbeat";
import type { SidecarConfigInput } from "../protocol/sidecar-config";
import { verify } from "../protocol/signing";

const SECRET = "e2e-heartbeat-secret-0123456789abcdef";
const CREATED_AT = 1_709_990_000_000;

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup(
  daemonScript: string,
  extra: Partial<SidecarConfigInput> = {},
): Promise<{ sc: BundledSidecar; parent: TestParent; root: string }> {
  const root = tempDir();
  const parent = await startParent();
  cleanups.push(
    () => removeDir(root),
    () => parent.close(),
  );
  const sc = await runBundledSidecar(
    {
      sandboxId: "sbx_e2e",
      root,
      sandboxCreatedAt: CREATED_AT,
      parentUrl: parent.url,
      daemon: { ...nodeDaemon(daemonScript), env: { ROOT_DIR: root } },
      ...extra,
      timings: { probeIntervalMs: 30, restartDelayMs: 30, shutdownGraceMs: 500, ...extra.timings },
    },
    SECRET,
  );
  cleanups.push(
    () => sc.kill(),
    () => removeDir(sc.dir),
  );
  return { sc, parent, root };
}

async function health(sc: BundledSidecar): Promise<SidecarHealth | null> {
  try {
    const { status, body } = await fetchHealth(sc.healthPort, SECRET);
    expect(status).toBe(200);
    const parsed = parseSidecarHealth(body);
    if (!parsed.ok) throw new Error(parsed.error);
    return parsed.value;
  } catch (err) {
    if ((err as Error).message.includes("fetch failed")) return null; // not listening yet
    throw err;
  }
}

function bodies(parent: TestParent): HeartbeatBody[] {
  return parent.received.map((r) => {
    const headers = { get: (n: string) => (r.headers[n] as string | undefined) ?? null };
    expect(verify(SECRET, headers, r.raw, Date.now())).toMatchObject({ ok: true });
    const body = JSON.parse(r.raw);
    // Always these; a heartbeat sent while a delivery is open (or just after a daemon came
    // back) carries openDeliverySince (or daemonReturned) too.
    const optional = ["daemonReturned", "openDeliverySince"];
    expect(
      Object.keys(body)
        .filter((k) => !optional.includes(k))
        .sort(),
    ).toEqual([
      "daemonRestarts",
      "daemonStatus",
      "generation",
      "lastChangedAt",
      "root",
      "sandboxCreatedAt",
      "sandboxId",
    ]);
    // No generation marker in a never-saved root: the sidecar reports 0 (restore attestation).
    expect(body.generation).toBe(0);
    const parsed = parseHeartbeatBody(body);
    if (!parsed.ok) throw new Error(parsed.error);
    return parsed.value;
  });
}

describe("bundled sidecar", () => {
  it("serves health through starting and running, sends signed heartbeats, tracks activity, keeps the secret from the daemon", async () => {
    const daemon = `
      const fs = require("node:fs");
      // Written under an ignored path so it does not count as activity.
      fs.mkdirSync(process.env.ROOT_DIR + "/scratch", { recursive: true });
      fs.writeFileSync(process.env.ROOT_DIR + "/scratch/env.json", JSON.stringify(process.env));
      console.log("hello from daemon");
      setTimeout(() => { ${LISTENING_DAEMON} }, 400);`;
    const { sc, parent, root } = await setup(daemon, {
      tools: [{ name: "never", check: "false", install: ["exit 1"] }],
      activityIgnore: ["scratch"],
      timings: { heartbeatIntervalMs: 150, toolRetryDelayMs: 30 },
    });

    const starting = await waitFor("health: starting with a pid", async () => {
      const h = await health(sc);
      return h?.daemon.pid ? h : null;
    });
    expect(starting).toMatchObject({ ok: false, daemon: { status: "starting", restarts: 0 } });
    const running = await waitFor("health: running", async () => {
      const h = await health(sc);
      return h?.daemon.status === "running" ? h : null;
    });
    expect(running).toMatchObject({ ok: true, daemon: { pid: starting.daemon.pid, restarts: 0 } });
    expect(running.heartbeat.lastSuccess).toBe(true);
    expect(running.heartbeat.lastTick).toBeGreaterThan(Date.now() - 5_000);
    expect(running.uptime).toBeGreaterThanOrEqual(0);

    // The daemon's environment: no secret, PORT and loopback HOST, ~/.local/bin first on PATH.
    const env = JSON.parse(readFileSync(join(root, "scratch", "env.json"), "utf8"));
    expect(env.CLAWRUN_HB_SECRET).toBeUndefined();
    expect(JSON.stringify(env)).not.toContain(SECRET);
    expect(env.PORT).toBe(String(sc.daemonPort));
    expect(env.HOST).toBe("127.0.0.1");
    expect(env.PATH.split(":")[0]).toBe(join(root, ".local", "bin"));

    // Heartbeats: exact body, verified signature; the first reports the initial activity.
    await waitFor("heartbeats", () => parent.received.length >= 2);
    const first = bodies(parent)[0];
    expect(first).toEqual({
      sandboxId: "sbx_e2e",
      lastChangedAt: CREATED_AT,
      sandboxCreatedAt: CREATED_AT,
      root,
      daemonStatus: "starting",
      daemonRestarts: 0,
      generation: 0,
    });
    expect(bodies(parent).some((b) => b.daemonStatus === "running")).toBe(true);

    // Activity: ignored paths do not count, workspace writes do.
    mkdirSync(join(root, "scratch", "sub"));
    writeFileSync(join(root, "scratch", "sub", "tmp"), "x");
    await sleep(400);
    expect(bodies(parent).at(-1)?.lastChangedAt).toBe(CREATED_AT);
    const before = Date.now();
    mkdirSync(join(root, "work", "deep"), { recursive: true });
    writeFileSync(join(root, "work", "deep", "notes.md"), "hi");
    const changed = await waitFor("activity in a heartbeat", () => {
      const last = bodies(parent).at(-1);
      return last && last.lastChangedAt >= before ? last : null;
    });
    expect(changed.lastChangedAt).toBeLessThanOrEqual(Date.now());

    // The tool that never installs is given up while the daemon keeps running.
    const logFile = join(root, "logs", "sidecar.log");
    await waitFor("tool warning", () =>
      readFileSync(logFile, "utf8").includes("tool never: not installed after 3 attempts"),
    );
    expect((await health(sc))?.daemon.status).toBe("running");

    sc.child.kill("SIGTERM");
    expect(await sc.exited).toEqual({ code: 0, signal: null });
    const log = readFileSync(logFile, "utf8");
    expect(log).toContain("[daemon:out] hello from daemon");
    expect(log).toMatch(/^\S+Z INFO sidecar starting/);
    // The daemon spawned ahead of the sidecar was adopted, not spawned a second time.
    expect(log).not.toContain("does not match the validated config");
    expect(log.match(/daemon started \(pid/g)).toHaveLength(1);
    expect(log).not.toContain(SECRET);
    expect(processAlive(running.daemon.pid as number)).toBe(false);
  });

  it("is the sandbox's door: refuses unsigned requests, forwards signed ones to the loopback daemon, serves its log, and counts a delivery as activity", async () => {
    const daemon = `require("node:http").createServer((q, s) => {
        let b = ""; q.on("data", (c) => (b += c));
        q.on("end", () => s.writeHead(200, { "content-type": "application/json" })
          .end(JSON.stringify({ reply: q.method + " " + q.url + " " + b })));
      }).listen(Number(process.env.PORT), process.env.HOST);`;
    const { sc, parent } = await setup(daemon, { timings: { heartbeatIntervalMs: 150 } });
    await waitFor("running", async () => (await health(sc))?.daemon.status === "running");

    const unsigned = await fetch(`http://127.0.0.1:${sc.healthPort}/health`);
    expect(unsigned.status).toBe(401);
    expect(await unsigned.json()).toMatchObject({
      error: { code: "unauthorized", message: expect.stringContaining("x-clawrun-timestamp") },
    });

    // No file changes at all: only the delivery makes the agent active.
    await sleep(300);
    expect(bodies(parent).at(-1)?.lastChangedAt).toBe(CREATED_AT);
    const before = Date.now();
    const res = await doorFetch(sc.healthPort, SECRET, "/daemon/message?x=1", {
      method: "POST",
      body: "hi",
      headers: { "content-type": "text/plain" },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ reply: "POST /message?x=1 hi" });
    const active = await waitFor("delivery reported as activity", () => {
      const last = bodies(parent).at(-1);
      return last && last.lastChangedAt >= before ? last : null;
    });
    expect(active.lastChangedAt).toBeLessThanOrEqual(Date.now());

    const logs = await doorFetch(sc.healthPort, SECRET, "/logs?tail=65536");
    expect(logs.status).toBe(200);
    expect(await logs.text()).toMatch(/INFO sidecar starting[\s\S]*daemon status: running/);
  });

  it("a daemon that exits at once ends failed after 5 restarts, and the parent hears it at once", async () => {
    // The default 60 s interval: a second heartbeat can only be the immediate one.
    const { sc, parent } = await setup("process.exit(1)");
    await waitFor("failed heartbeat", () =>
      bodies(parent).some((b) => b.daemonStatus === "failed"),
    );
    const sent = bodies(parent);
    expect(sent[0]?.daemonStatus).toBe("starting");
    expect(sent.at(-1)).toMatchObject({ daemonStatus: "failed", daemonRestarts: 5 });
    expect(await health(sc)).toMatchObject({
      ok: false,
      daemon: { status: "failed", pid: null, restarts: 5 },
      heartbeat: { lastSuccess: true },
    });
    sc.child.kill("SIGINT");
    expect((await sc.exited).code).toBe(0);
  });

  it("SIGTERM stops a daemon that ignores SIGTERM within the grace period, leaving no process", async () => {
    // First run: leaves an orphan behind and crashes. Second run: ignores SIGTERM, has a child.
    const daemon = `
      const fs = require("node:fs"), { spawn } = require("node:child_process");
      const stubborn = ["-e", "process.on('SIGTERM', () => {}); setInterval(() => {}, 1000)"];
      const kid = spawn(process.execPath, stubborn, { stdio: "ignore" });
      const first = !fs.existsSync(process.env.ROOT_DIR + "/orphan");
      fs.writeFileSync(process.env.ROOT_DIR + (first ? "/orphan" : "/kid"), String(kid.pid));
      if (first) process.exit(1);
      process.on("SIGTERM", () => {});
      ${LISTENING_DAEMON}`;
    const { sc, root } = await setup(daemon);
    const h = await waitFor("running", async () => {
      const x = await health(sc);
      return x?.daemon.status === "running" ? x : null;
    });
    expect(h.daemon.restarts).toBe(1);
    await waitFor("kid pid", () => existsSync(join(root, "kid")));
    const pids = [
      h.daemon.pid as number,
      Number(readFileSync(join(root, "kid"), "utf8")),
      Number(readFileSync(join(root, "orphan"), "utf8")),
    ];
    expect(pids.every(processAlive)).toBe(true);

    const started = Date.now();
    sc.child.kill("SIGTERM");
    expect(await sc.exited).toEqual({ code: 0, signal: null });
    expect(Date.now() - started).toBeLessThan(500 + 1_500);
    await waitFor("no process left", () => pids.every((p) => !processAlive(p)), 1_000);
    const log = readFileSync(join(root, "logs", "sidecar.log"), "utf8");
    expect(log).toMatch(/still running after 500 ms: SIGKILL/);
    expect(log).toMatch(/daemon status: stopped/);
    // The first run's orphan was no longer under the daemon: the process-group sweep got it.
    expect(log).toMatch(/killed 1 leftover process\(es\)/);
  });

  it.each([
    ["an invalid config", { sandboxId: "" }, SECRET, /invalid config .*sandboxId/],
    ["a missing secret", {}, "", /CLAWRUN_HB_SECRET is not set/],
  ])("exits 2 with one stderr line on %s", async (_name, override, secret, message) => {
    const root = tempDir();
    cleanups.push(() => removeDir(root));
    const sc = await runBundledSidecar(
      {
        sandboxId: "sbx_bad",
        root,
        sandboxCreatedAt: 1,
        parentUrl: "http://127.0.0.1:9",
        daemon: nodeDaemon(LISTENING_DAEMON),
        ...override,
      },
      secret,
    );
    cleanups.push(
      () => sc.kill(),
      () => removeDir(sc.dir),
    );
    expect((await sc.exited).code).toBe(2);
    const lines = sc.stderr().trimEnd().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(message);
  });
});

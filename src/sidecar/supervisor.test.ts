import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  freePort,
  LISTENING_DAEMON,
  MemoryLog,
  nodeDaemon,
  processAlive,
  removeDir,
  tempDir,
  waitFor,
} from "../../tests/support/sidecar-harness";
import type { DaemonStatus } from "../protocol/heartbeat";
import { Supervisor, type SupervisorTimings } from "./supervisor";

const TIMINGS: SupervisorTimings = {
  probeIntervalMs: 30,
  startupProbeMs: 30,
  notListeningWarnMs: 200,
  restartDelayMs: 50,
  maxRestarts: 5,
  stableResetMs: 400,
  shutdownGraceMs: 500,
};

const running: Supervisor[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.stop()));
  for (const d of dirs.splice(0)) removeDir(d);
});

async function supervise(script: string, timings: Partial<SupervisorTimings> = {}) {
  const dir = tempDir();
  dirs.push(dir);
  const port = await freePort();
  const log = new MemoryLog();
  const statuses: DaemonStatus[] = [];
  const { command, args } = nodeDaemon(script);
  const sup = new Supervisor({
    command,
    args,
    env: { ...(process.env as Record<string, string>), PORT: String(port), DIR: dir },
    cwd: dir,
    port,
    timings: { ...TIMINGS, ...timings },
    log,
    onStatusChange: (s) => statuses.push(s),
  });
  running.push(sup);
  sup.start();
  return { sup, log, statuses, dir, port };
}

describe("Supervisor", () => {
  it("a daemon that exits at once is restarted 5 times, then failed", async () => {
    const { sup, log, statuses } = await supervise("process.exit(3)");
    await waitFor("failed", () => sup.snapshot().status === "failed");
    expect(sup.snapshot()).toEqual({ status: "failed", pid: null, restarts: 5 });
    expect(statuses).toEqual(["failed"]); // starting all along, then failed: one change
    expect(log.lines.filter((l) => /daemon started/.test(l))).toHaveLength(6);
    expect(log.has(/restart 5\/5 in 50 ms/)).toBe(true);
    expect(log.has(/ERROR daemon exit code 3; gave up after 5 restarts/)).toBe(true);
    // No restart after failure.
    await new Promise((r) => setTimeout(r, 200));
    expect(log.lines.filter((l) => /daemon started/.test(l))).toHaveLength(6);
  });

  it("a daemon that crashes once then stays up is running with 1 restart, reset after the stable window", async () => {
    const script = `
      const fs = require("node:fs"), marker = require("node:path").join(process.env.DIR, "crashed");
      if (!fs.existsSync(marker)) { fs.writeFileSync(marker, ""); process.exit(1); }
      ${LISTENING_DAEMON}`;
    const { sup, statuses } = await supervise(script);
    await waitFor("running", () => sup.snapshot().status === "running");
    const snap = sup.snapshot();
    expect(snap.restarts).toBe(1);
    expect(snap.pid).toBeGreaterThan(0);
    expect(statuses).toEqual(["running"]);
    await waitFor("counter reset", () => sup.snapshot().restarts === 0, 3_000);
    expect(sup.snapshot().status).toBe("running");
  });

  it("captures daemon output line by line with prefixes", async () => {
    const script = `process.stdout.write("one\\ntw"); setTimeout(() => { process.stdout.write("o\\n"); console.error("oops"); }, 20); ${LISTENING_DAEMON}`;
    const { sup, log } = await supervise(script);
    await waitFor("running", () => sup.snapshot().status === "running");
    await waitFor("stderr line", () => log.has(/\[daemon:err\] oops/));
    expect(log.has(/INFO \[daemon:out\] one$/)).toBe(true);
    expect(log.has(/INFO \[daemon:out\] two$/)).toBe(true);
  });

  it("warns when the daemon is not listening yet, keeps probing, then reports running", async () => {
    const script = `setTimeout(() => { ${LISTENING_DAEMON} }, 400);`;
    const { sup, log } = await supervise(script);
    await waitFor("warning", () => log.has(/WARN daemon not listening on port \d+ after 200 ms/));
    expect(sup.snapshot().status).toBe("starting");
    await waitFor("running", () => sup.snapshot().status === "running");
  });

  it("a command that cannot be spawned ends failed", async () => {
    const dir = tempDir();
    dirs.push(dir);
    const log = new MemoryLog();
    const sup = new Supervisor({
      command: join(dir, "no-such-daemon"),
      args: [],
      env: {},
      cwd: dir,
      port: await freePort(),
      timings: { ...TIMINGS, restartDelayMs: 10 },
      log,
    });
    running.push(sup);
    sup.start();
    await waitFor("failed", () => sup.snapshot().status === "failed");
    expect(log.has(/spawn failed: .*ENOENT/)).toBe(true);
  });

  it("stop() SIGKILLs a daemon that ignores SIGTERM, and its children, after the grace period", async () => {
    const script = `
      process.on("SIGTERM", () => {});
      const kid = require("node:child_process").spawn(process.execPath, ["-e", "process.on('SIGTERM', () => {}); setInterval(() => {}, 1000)"], { stdio: "ignore" });
      require("node:fs").writeFileSync(require("node:path").join(process.env.DIR, "kid"), String(kid.pid));
      ${LISTENING_DAEMON}`;
    const { sup, dir } = await supervise(script);
    await waitFor("running", () => sup.snapshot().status === "running");
    await waitFor("child pid", () => existsSync(join(dir, "kid")));
    const daemonPid = sup.snapshot().pid as number;
    const kidPid = Number(readFileSync(join(dir, "kid"), "utf8"));
    expect(processAlive(kidPid)).toBe(true);
    const started = Date.now();
    await sup.stop();
    const took = Date.now() - started;
    expect(took).toBeGreaterThanOrEqual(TIMINGS.shutdownGraceMs - 20);
    expect(took).toBeLessThan(TIMINGS.shutdownGraceMs + 1_500);
    expect(sup.snapshot()).toEqual({ status: "stopped", pid: null, restarts: 0 });
    await waitFor("processes gone", () => !processAlive(daemonPid) && !processAlive(kidPid), 2_000);
  });

  it("stop() also ends what a daemon that exits on SIGTERM leaves behind", async () => {
    // The daemon exits at once; its child ignores SIGTERM and is reparented away from it.
    // The child writes its pid only once its handler is installed.
    const kid = `process.on("SIGTERM", () => {}); require("node:fs").writeFileSync(process.env.DIR + "/kid", String(process.pid)); setInterval(() => {}, 1000);`;
    const script = `
      require("node:child_process").spawn(process.execPath, ["-e", ${JSON.stringify(kid)}], { stdio: "ignore" });
      ${LISTENING_DAEMON}`;
    const { sup, dir, log } = await supervise(script);
    await waitFor("running", () => sup.snapshot().status === "running");
    await waitFor("child pid", () => existsSync(join(dir, "kid")));
    const kidPid = Number(readFileSync(join(dir, "kid"), "utf8"));
    await sup.stop();
    expect(processAlive(kidPid)).toBe(false);
    expect(log.has(/killed 1 leftover daemon process/)).toBe(true);
  });

  it("stop() returns as soon as a well-behaved daemon exits", async () => {
    const { sup } = await supervise(LISTENING_DAEMON, { shutdownGraceMs: 5_000 });
    await waitFor("running", () => sup.snapshot().status === "running");
    const started = Date.now();
    await sup.stop();
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(sup.snapshot().status).toBe("stopped");
  });

  it("stop() during the restart delay cancels the restart", async () => {
    const { sup, log, dir } = await supervise(
      `require("node:fs").appendFileSync(require("node:path").join(process.env.DIR, "runs"), "x"); process.exit(1)`,
      { restartDelayMs: 300 },
    );
    await waitFor("first exit", () => log.has(/restart 1\/5 in 300 ms/));
    await sup.stop();
    await new Promise((r) => setTimeout(r, 400));
    expect(readFileSync(join(dir, "runs"), "utf8")).toBe("x");
    expect(sup.snapshot().status).toBe("stopped");
  });
});

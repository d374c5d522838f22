import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  freePort,
  LISTENING_DAEMON,
  MemoryLog,
  removeDir,
  tempDir,
  waitFor,
} from "../../tests/support/sidecar-harness";
import { BYPASS_ENV, HB_SECRET_ENV } from "../protocol/constants";
import {
  daemonSpawnSpec,
  type EarlyDaemon,
  earlyDaemonSection,
  sameSpec,
  spawnEarlyDaemon,
} from "./early-daemon";
import { Supervisor } from "./supervisor";

const TIMINGS = {
  probeIntervalMs: 30,
  startupProbeMs: 10,
  notListeningWarnMs: 200,
  restartDelayMs: 50,
  maxRestarts: 5,
  stableResetMs: 400,
  shutdownGraceMs: 500,
};

const dirs: string[] = [];
const supervisors: Supervisor[] = [];
const earlies: EarlyDaemon[] = [];
afterEach(async () => {
  await Promise.all(supervisors.splice(0).map((s) => s.stop()));
  for (const e of earlies.splice(0)) e.child.kill("SIGKILL");
  for (const d of dirs.splice(0)) removeDir(d);
});

function configFile(config: unknown): { path: string; root: string } {
  const root = tempDir();
  dirs.push(root);
  const path = join(root, "sidecar.json");
  writeFileSync(path, JSON.stringify(config));
  return { path, root };
}

describe("earlyDaemonSection: only a plainly well-formed daemon section is spawned early", () => {
  it.each([
    ["defaults filled in", { root: "/r", daemon: { command: "node" } }, true],
    ["no root", { daemon: { command: "node" } }, false],
    ["empty command", { root: "/r", daemon: { command: "" } }, false],
    ["args not strings", { root: "/r", daemon: { command: "x", args: [1] } }, false],
    ["env not strings", { root: "/r", daemon: { command: "x", env: { A: 1 } } }, false],
    ["port out of range", { root: "/r", daemon: { command: "x", port: 70000 } }, false],
    ["cwd not a string", { root: "/r", daemon: { command: "x", cwd: 3 } }, false],
    ["not an object", "daemon", false],
  ])("%s", (_name, raw, ok) => {
    expect(earlyDaemonSection(raw) !== null).toBe(ok);
  });

  it("fills the validator's defaults, so an adopted daemon is the one the sidecar would spawn", () => {
    const env = { PATH: "/bin", [HB_SECRET_ENV]: "s", [BYPASS_ENV]: "b" };
    const early = earlyDaemonSection({ root: "/r", daemon: { command: "node", args: ["{PORT}"] } });
    const full = { command: "node", args: ["{PORT}"], env: {}, port: 3000 };
    expect(
      sameSpec(daemonSpawnSpec("/r", early?.daemon ?? full, env), daemonSpawnSpec("/r", full, env)),
    ).toBe(true);
    // The secret and the bypass never reach the daemon, early or not; it binds loopback only.
    const spec = daemonSpawnSpec("/r", { ...full, args: ["{HOST}:{PORT}"] }, env);
    expect(spec.env[HB_SECRET_ENV]).toBeUndefined();
    expect(spec.env[BYPASS_ENV]).toBeUndefined();
    expect(spec.env).toMatchObject({ HOST: "127.0.0.1", PORT: "3000" });
    expect(spec.args).toEqual(["127.0.0.1:3000"]);
  });
});

describe("spawnEarlyDaemon", () => {
  it("does nothing without the heartbeat secret or with a root that is not a directory", () => {
    const { path } = configFile({ root: "/nonexistent-root", daemon: { command: "true" } });
    expect(spawnEarlyDaemon(path, { [HB_SECRET_ENV]: "s" })).toBeNull();
    const ok = configFile({ root: "/", daemon: { command: "true" } });
    expect(spawnEarlyDaemon(ok.path, {})).toBeNull();
  });

  it("reads the restored generation before it spawns the daemon", () => {
    const root = tempDir();
    dirs.push(root);
    mkdirSync(join(root, ".clawrun"));
    writeFileSync(join(root, ".clawrun", "generation.json"), '{"generation":4}');
    const { path } = configFile({ root, daemon: { command: "true" } });
    const early = spawnEarlyDaemon(path, { PATH: process.env.PATH, [HB_SECRET_ENV]: "s" });
    if (early) earlies.push(early);
    expect(early?.generation).toBe(4);
  });

  it("is adopted by the supervisor, which sees it listening and logs its output", async () => {
    const port = await freePort();
    const script = `console.log("hello early"); ${LISTENING_DAEMON}`;
    const root = tempDir();
    dirs.push(root);
    const { path } = configFile({
      root,
      daemon: { command: process.execPath, args: ["-e", script], port },
    });
    const early = spawnEarlyDaemon(path, { PATH: process.env.PATH, [HB_SECRET_ENV]: "s" });
    if (!early) throw new Error("expected an early daemon");
    earlies.push(early);
    const log = new MemoryLog();
    const sup = new Supervisor({ ...early.spec, timings: TIMINGS, log });
    supervisors.push(sup);
    sup.start(early);
    await waitFor("running", () => sup.snapshot().status === "running");
    expect(sup.snapshot().pid).toBe(early.child.pid);
    await waitFor("its output", () => log.lines.some((l) => l.includes("hello early")));
  });

  it("an early daemon that exited before adoption goes through the restart policy", async () => {
    const port = await freePort();
    const { path } = configFile({
      root: "/",
      daemon: { command: process.execPath, args: ["-e", "process.exit(3)"], port },
    });
    const early = spawnEarlyDaemon(path, { PATH: process.env.PATH, [HB_SECRET_ENV]: "s" });
    if (!early) throw new Error("expected an early daemon");
    await waitFor("it exits", () => early.ended !== null);
    const log = new MemoryLog();
    const sup = new Supervisor({ ...early.spec, timings: TIMINGS, log });
    supervisors.push(sup);
    sup.start(early);
    expect(log.lines.join("\n")).toMatch(/daemon exit code 3; restart 1\/5/);
    await waitFor("failed", () => sup.snapshot().status === "failed");
  });
});

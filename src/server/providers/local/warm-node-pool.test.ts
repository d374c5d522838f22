import { spawn } from "node:child_process";
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import pino from "pino";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { parseWarmJob, warmJobFor } from "../../../protocol/warm-job";
import { bundlePath } from "../../bundles";
import type { ManagedSandbox } from "../types";
import { LocalProvider } from "./local-provider";
import { isLiveState, readStat } from "./proc";
import { REPLENISH_AFTER_MS } from "./warm-node-pool";

const boot = { PATH: "/usr/bin:/bin", LANG: "C.UTF-8" };
const env = { PATH: "/home/agent/.local/bin:/usr/bin:/bin", LANG: "C.UTF-8", HOME: "/home/agent" };

describe("warmJobFor: which commands a warm Node process may run", () => {
  it.each([
    ["node with a script", "node", ["app.js", "x"], env, { script: "app.js", args: ["x"] }],
    ["another program", "sh", ["-c", "node app.js"], env, null],
    ["node options before the script", "node", ["--inspect", "app.js"], env, null],
    ["no script", "node", [], env, null],
    ["NODE_OPTIONS in the environment", "node", ["app.js"], { ...env, NODE_OPTIONS: "-r x" }, null],
    ["a locale variable Node reads at boot", "node", ["app.js"], { ...env, LC_ALL: "de_DE" }, null],
    ["another LANG than it booted with", "node", ["app.js"], { ...env, LANG: "de_DE.UTF-8" }, null],
    ["a TZ it did not boot with", "node", ["app.js"], { ...env, TZ: "Europe/Berlin" }, null],
  ])("%s", (_name, cmd, args, e, expected) => {
    const job = warmJobFor(cmd, args, e, "/home/agent", boot);
    if (expected === null) expect(job).toBeNull();
    else expect(job).toEqual({ ...expected, env: e, cwd: "/home/agent" });
  });
});

describe("parseWarmJob", () => {
  it("accepts a job and refuses anything malformed", () => {
    const job = { script: "a.js", args: ["1"], env: { A: "b" }, cwd: "/x" };
    expect(parseWarmJob(job)).toEqual(job);
    for (const bad of [
      null,
      [],
      { ...job, script: "" },
      { ...job, args: [1] },
      { ...job, env: { A: 1 } },
      { ...job, env: [] },
      { ...job, cwd: undefined },
    ]) {
      expect(parseWarmJob(bad)).toBeNull();
    }
  });
});

const haveBundle = existsSync(bundlePath("localWarmNode"));
const stateDir = mkdtempSync(join(tmpdir(), "clawrun-warm-"));
const logger = pino({ level: "silent" });
const made: ManagedSandbox[] = [];
afterEach(async () => {
  await Promise.allSettled(made.splice(0).map((s) => s.stop()));
});
afterAll(() => rmSync(stateDir, { recursive: true, force: true }));

const cmdline = (pid: number) => readFileSync(`/proc/${pid}/cmdline`, "utf8");
/** A warm process took its environment after boot: the one it was started with lacks HOME. */
const ranWarm = (pid: number) => !readFileSync(`/proc/${pid}/environ`, "utf8").includes("HOME=");
const alive = (pid: number) => {
  const stat = readStat(pid);
  return stat !== null && isLiveState(stat.state);
};
async function until(what: string, cond: () => boolean, ms = 5_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

/** Takes the warm child its process left (as sidecar/warm-daemon.ts does) and reports it. */
const TAKER = `const slot = Symbol.for("clawrun.warm-child"); const w = globalThis[slot]; delete globalThis[slot]; require("fs").writeFileSync("taken.json", JSON.stringify(w ? { child: w.child.pid, node: w.node, boot: w.boot } : null)); setInterval(() => {}, 1000);`;
/** Live processes whose parent is `pid`. */
const childrenOf = (pid: number): number[] =>
  readdirSync("/proc")
    .filter((d) => /^\d+$/.test(d))
    .map(Number)
    .filter((p) => readStat(p)?.ppid === pid && alive(p));

const REPORT = `require("fs").writeFileSync("report.json", JSON.stringify({ argv: process.argv.slice(2), cwd: process.cwd(), env: process.env, main: require.main === module, pid: process.pid })); console.log("to stdout"); console.error("to stderr"); setInterval(() => {}, 1000);`;

describe.skipIf(!haveBundle)("the local provider's warm Node process", () => {
  const provider = new LocalProvider({ stateDir, logger, killGraceMs: 300, watchdogPollMs: 50 });
  const create = async () => {
    const s = await provider.create({ timeoutMs: 60_000, ports: [3001] });
    made.push(s);
    await s.writeFiles([{ path: "app/report.js", content: REPORT }]);
    return s;
  };
  const report = async (s: ManagedSandbox) => {
    await until("the report", () => existsSync(join(s.root, "app", "report.json")));
    await sleep(50);
    return JSON.parse(readFileSync(join(s.root, "app", "report.json"), "utf8"));
  };

  it("runs a detached `node <script>` as Node would: argv, environment, directory, main module, output in the command's logs", async () => {
    const s = await create();
    const run = await s.runCommand({
      cmd: "node",
      args: ["report.js", "a", "b"],
      cwd: "app",
      env: { SECRET_FOR_IT: "s3cret" },
      detached: true,
    });
    const r = await report(s);
    // It ran in the process booted during create, titled as the command for ps.
    expect(r.pid).toBe(run.pid);
    expect(ranWarm(r.pid)).toBe(true);
    expect(cmdline(r.pid)).toContain("node report.js a b");
    expect(r.argv).toEqual(["a", "b"]);
    expect(r.cwd).toBe(join(s.root, "app"));
    expect(r.main).toBe(true);
    expect(r.env.SECRET_FOR_IT).toBe("s3cret");
    expect(r.env.HOME).toBe(s.root);
    expect(r.env.CLAWRUN_PORT_3001).toBeDefined();
    const logs = join(stateDir, "sandboxes", s.id, "logs");
    await until("its output", () =>
      readFileSync(join(logs, `${run.commandId}.err`), "utf8").includes("to stderr"),
    );
    expect(readFileSync(join(logs, `${run.commandId}.out`), "utf8")).toContain("to stdout");
    // The secret travelled through a pipe: no file of the provider holds it.
    for (const f of readdirSync(join(stateDir, "warm"))) {
      expect(readFileSync(join(stateDir, "warm", f), "utf8")).not.toContain("s3cret");
    }
    // It is the sandbox's process like any other: stop() ends it.
    await s.stop();
    await until("the process to end", () => !alive(r.pid));
  });

  it("spawns cold what a process that already booted cannot honour (NODE_OPTIONS), and only one command per warm process", async () => {
    const s = await create();
    const cold = await s.runCommand({
      cmd: "node",
      args: ["report.js"],
      cwd: "app",
      env: { NODE_OPTIONS: "--max-old-space-size=64" },
      detached: true,
    });
    const r = await report(s);
    expect(r.pid).toBe(cold.pid);
    expect(ranWarm(r.pid)).toBe(false);
    rmSync(join(s.root, "app", "report.json"));
    // The warm one was left for the next eligible command; the one after that runs cold.
    const first = await s.runCommand({
      cmd: "node",
      args: ["report.js"],
      cwd: "app",
      detached: true,
    });
    expect(ranWarm(first.pid as number)).toBe(true);
    const second = await s.runCommand({
      cmd: "node",
      args: ["report.js"],
      cwd: "app",
      detached: true,
    });
    expect(ranWarm(second.pid as number)).toBe(false);
  });

  it("leaves a booted warm child for the program it becomes (the sidecar's daemon runs in it), and lets it go when that program does not take it", async () => {
    const s = await create();
    await s.writeFiles([{ path: "app/taker.js", content: TAKER }]);
    const taker = await s.runCommand({
      cmd: "node",
      args: ["taker.js"],
      cwd: "app",
      detached: true,
    });
    const file = join(s.root, "app", "taken.json");
    await until("the taker's report", () => existsSync(file));
    await sleep(50);
    const taken = JSON.parse(readFileSync(file, "utf8"));
    expect(taken).not.toBeNull();
    expect(readStat(taken.child)?.ppid).toBe(taker.pid);
    expect(cmdline(taken.child)).toContain("local-warm-node.js\0child");
    expect(taken.boot.PATH).toBeTruthy();
    expect(taken.node).toBe(realpathSync(taken.node));
    // Taken: still there after the second in which an untaken one is let go.
    await sleep(1_500);
    expect(alive(taken.child)).toBe(true);

    // The next warm process becomes a program that ignores it: its child exits.
    await sleep(REPLENISH_AFTER_MS + 700);
    const other = await s.runCommand({
      cmd: "node",
      args: ["report.js"],
      cwd: "app",
      detached: true,
    });
    expect(ranWarm(other.pid as number)).toBe(true);
    const children = childrenOf(other.pid as number);
    expect(children).toHaveLength(1);
    await until("the untaken child to exit", () => !alive(children[0] as number));
    // It takes its stopped sandbox's whole group down with it, the taken child included.
    await s.stop();
    await until("the taken child to end with its sandbox", () => !alive(taken.child));
  });

  it("boots the next one shortly after one is used, so the next command finds it ready", async () => {
    const s = await create();
    const first = await s.runCommand({
      cmd: "node",
      args: ["report.js"],
      cwd: "app",
      detached: true,
    });
    expect(ranWarm(first.pid as number)).toBe(true);
    await sleep(REPLENISH_AFTER_MS + 700);
    const next = await s.runCommand({
      cmd: "node",
      args: ["report.js"],
      cwd: "app",
      detached: true,
    });
    expect(ranWarm(next.pid as number)).toBe(true);
  });

  it("exits with the server that started it when no job came", async () => {
    // Plays a server that creates a sandbox (starting a warm process), runs no node in it, exits.
    const fixture = join(process.cwd(), "tests", "fixtures", "create-and-exit.ts");
    const input = {
      stateDir,
      killGraceMs: 300,
      watchdogPollMs: 50,
      create: { timeoutMs: 60_000, ports: [3001] },
      files: [],
      cmd: "sleep",
      args: ["60"],
    };
    const child = spawn(process.execPath, ["--import", "tsx", fixture, JSON.stringify(input)], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout.on("data", (c) => {
      out += c;
    });
    await new Promise((r) => child.once("exit", r));
    const { id } = JSON.parse(out) as { id: string };
    const started = readdirSync(join(stateDir, "warm")).filter((f) =>
      f.startsWith(`${child.pid}-`),
    );
    expect(started.length).toBeGreaterThan(0); // it did start one
    // Warm processes of this directory not started by this test process: the fixture's.
    const orphans = (): number[] =>
      readdirSync("/proc")
        .filter((d) => /^\d+$/.test(d))
        .map(Number)
        .filter((pid) => {
          try {
            return (
              readlinkSync(`/proc/${pid}/cwd`) === join(stateDir, "warm") &&
              readStat(pid)?.ppid !== process.pid
            );
          } catch {
            return false;
          }
        });
    await until("the fixture's warm process to exit", () => orphans().length === 0);
    await (await provider.get(id)).stop();
  });
});

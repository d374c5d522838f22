import { spawn } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readFileSync,
  realpathSync,
  writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  LISTENING_DAEMON,
  processAlive,
  removeDir,
  tempDir,
  waitFor,
} from "../../tests/support/sidecar-harness";
import { bundlePath } from "../server/bundles";
import { dismissWarmChild, runInWarmChild, type WarmDaemonChild } from "./warm-daemon";

// The warm program is the local provider's bundle; a real one is booted as the warm child.
const bundle = bundlePath("localWarmNode");
const node = realpathSync(process.execPath);
const PATH = `${dirname(process.execPath)}:/usr/bin:/bin`;

const dirs: string[] = [];
const warmChildren: WarmDaemonChild[] = [];
afterEach(() => {
  for (const w of warmChildren.splice(0)) w.child.kill("SIGKILL");
  for (const d of dirs.splice(0)) removeDir(d);
});

/** What a warm process does while it waits (warm-node.ts): one more of itself, fd 3 a pipe. */
function bootWarmChild(): WarmDaemonChild {
  const child = spawn(process.execPath, [bundle, "child"], {
    env: { PATH } as unknown as NodeJS.ProcessEnv,
    stdio: ["ignore", "pipe", "pipe", "pipe"],
  });
  const w = { child, node, boot: { PATH } };
  warmChildren.push(w);
  return w;
}

const REPORT = `require("fs").writeFileSync("report.json", JSON.stringify({ pid: process.pid, argv: process.argv.slice(2), cwd: process.cwd(), env: process.env, main: require.main === module })); ${LISTENING_DAEMON}`;

function agentRoot(): string {
  const root = tempDir();
  dirs.push(root);
  mkdirSync(join(root, "app"));
  writeFileSync(join(root, "app", "report.js"), REPORT);
  return root;
}

const spec = (root: string, extra: Record<string, string> = {}) => ({
  command: "node",
  args: ["report.js", "--port", "1"],
  env: { PATH, HOME: root, PORT: "0", MODEL_KEY: "k", ...extra },
  cwd: join(root, "app"),
});

describe.skipIf(!existsSync(bundle))("runInWarmChild: the daemon in the warm child", () => {
  it("runs `node <script>` in the booted child: its argv, environment and directory, as a cold spawn would", async () => {
    const root = agentRoot();
    const warm = bootWarmChild();
    const child = runInWarmChild(warm, spec(root));
    expect(child).toBe(warm.child);
    const file = join(root, "app", "report.json");
    await waitFor("the daemon's report", () => existsSync(file));
    await waitFor("a whole report", () => readFileSync(file, "utf8").endsWith("}"));
    const r = JSON.parse(readFileSync(file, "utf8"));
    expect(r.pid).toBe(warm.child.pid);
    expect(r.argv).toEqual(["--port", "1"]);
    expect(r.cwd).toBe(join(root, "app"));
    expect(r.main).toBe(true);
    expect(r.env).toEqual(spec(root).env);
    // Its output reaches the supervisor through the child's pipes.
    expect(warm.child.stdout).not.toBeNull();
  });

  it.each<[string, { command?: string; env?: Record<string, string> }]>([
    ["another program", { command: "sh" }],
    ["Node given by path", { command: process.execPath }],
    ["NODE_OPTIONS", { env: { NODE_OPTIONS: "--max-old-space-size=64" } }],
    ["another LANG than the child booted with", { env: { LANG: "de_DE.UTF-8" } }],
  ])("leaves it unused for %s", async (_name, change) => {
    const root = agentRoot();
    const warm = bootWarmChild();
    const s = spec(root);
    const asked = { ...s, command: change.command ?? s.command, env: { ...s.env, ...change.env } };
    expect(runInWarmChild(warm, asked)).toBeNull();
    expect(processAlive(warm.child.pid as number)).toBe(true);
  });

  it("leaves it unused when another `node` comes first on the daemon's PATH", () => {
    const root = agentRoot();
    const bin = join(root, "bin");
    mkdirSync(bin);
    writeFileSync(join(bin, "node"), "#!/bin/sh\nexec true\n");
    chmodSync(join(bin, "node"), 0o755);
    const warm = bootWarmChild();
    expect(runInWarmChild(warm, spec(root, { PATH: `${bin}:${PATH}` }))).toBeNull();
  });

  it("leaves a child that died for a cold spawn, and there is none without a warm process", async () => {
    const warm = bootWarmChild();
    warm.child.kill("SIGKILL");
    await new Promise((r) => warm.child.once("exit", r));
    expect(runInWarmChild(warm, spec(agentRoot()))).toBeNull();
    expect(runInWarmChild(null, spec(agentRoot()))).toBeNull();
  });

  it("a dismissed warm child exits: it holds nothing and waits for no one", async () => {
    const warm = bootWarmChild();
    const pid = warm.child.pid as number;
    await waitFor("it boots", () => processAlive(pid));
    dismissWarmChild(warm);
    await waitFor("it exits", () => !processAlive(pid));
  });
});

/**
 * A Node.js process booted ahead of the next `node <script>` a local sandbox runs detached
 * (docs/local-provider.md, "Warm Node"): bundled to build/bundles/local-warm-node.js and
 * started by the provider with only PATH/LANG/TZ. It waits for one job line on fd 3 (a pipe
 * from the server, never a file: the job's environment holds the sidecar's secrets), then
 * takes on the job's environment, directory and argv and runs the script as Node's main
 * module. Nothing of a sandbox reaches it before the job, so it never sees a half-restored
 * sandbox. The server gone before sending a job (fd 3 closed): it exits.
 *
 * While it waits it boots one more of itself as its child (`child` argument: no further
 * child), left for the program it becomes: the sidecar runs its daemon in it
 * (sidecar/warm-daemon.ts). A program that does not take it within a second lets it go.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { realpathSync } from "node:fs";
import Module from "node:module";
import { Socket } from "node:net";
import { resolve } from "node:path";
import {
  parseWarmJob,
  WARM_CHILD_SLOT,
  type WarmChild,
  type WarmJob,
} from "../../../protocol/warm-job";

const CHILD_ARG = "child";
const slot = globalThis as { [WARM_CHILD_SLOT]?: WarmChild<ChildProcess> };

// Loaded while waiting (most programs need them), not after the job.
const load = Module.createRequire(__filename);
for (const name of ["node:child_process", "node:crypto", "node:fs", "node:http", "node:net"]) {
  load(name);
}

function become(job: WarmJob): void {
  for (const key of Object.keys(process.env)) delete process.env[key];
  Object.assign(process.env, job.env);
  process.chdir(job.cwd);
  process.argv = [process.execPath, resolve(job.cwd, job.script), ...job.args];
  // What ps shows (within the length of its own command line), as for a cold `node <script>`.
  process.title = ["node", job.script, ...job.args].join(" ");
  // What `node <script>` does with its script: CommonJS or ESM, require.main set.
  (Module as unknown as { runMain: () => void }).runMain();
  setTimeout(() => {
    const left = slot[WARM_CHILD_SLOT];
    delete slot[WARM_CHILD_SLOT];
    // Its fd 3 closes: a warm process without a job exits.
    for (const s of left?.child.stdio ?? []) s?.destroy();
  }, 1_000).unref();
}

/** Boots the warm child (see above). Never throws: without it the daemon starts cold. */
function bootWarmChild(): void {
  try {
    const child = spawn(process.execPath, [__filename, CHILD_ARG], {
      stdio: ["ignore", "pipe", "pipe", "pipe"],
    });
    child.on("error", () => {});
    // Waiting must not keep this process alive, whatever it becomes.
    child.unref();
    for (const s of child.stdio) (s as Socket | null)?.unref?.();
    (child.stdio[3] as Socket | null)?.on("error", () => {});
    const { PATH = "", LANG, TZ } = process.env;
    slot[WARM_CHILD_SLOT] = {
      child,
      node: realpathSync(process.execPath),
      boot: { PATH, ...(LANG === undefined ? {} : { LANG }), ...(TZ === undefined ? {} : { TZ }) },
    };
  } catch {
    // the daemon spawns cold
  }
}

const channel = new Socket({ fd: 3, readable: true, writable: false });
let text = "";
let taken = false;
channel.setEncoding("utf8");
channel.on("data", (chunk: string) => {
  text += chunk;
  const end = text.indexOf("\n");
  if (end < 0 || taken) return;
  taken = true;
  channel.removeAllListeners();
  channel.on("error", () => {});
  channel.destroy();
  let job: WarmJob | null = null;
  try {
    job = parseWarmJob(JSON.parse(text.slice(0, end)));
  } catch {
    job = null;
  }
  if (!job) {
    process.stderr.write("clawrun-warm-node: malformed job\n");
    process.exit(70);
  }
  become(job);
});
if (process.argv[2] !== CHILD_ARG) bootWarmChild();

channel.on("end", () => {
  if (!taken) process.exit(0);
});
channel.on("error", () => {
  if (!taken) process.exit(0);
});

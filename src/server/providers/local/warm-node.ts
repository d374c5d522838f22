/**
 * A Node.js process booted ahead of the next `node <script>` a local sandbox runs detached
 * (docs/local-provider.md, "Warm Node"): bundled to build/bundles/local-warm-node.js and
 * started by the provider with only PATH/LANG/TZ. It waits for one job line on fd 3 (a pipe
 * from the server, never a file: the job's environment holds the sidecar's secrets), then
 * takes on the job's environment, directory and argv and runs the script as Node's main
 * module. Nothing of a sandbox reaches it before the job, so it never sees a half-restored
 * sandbox. The server gone before sending a job (fd 3 closed): it exits.
 */
import Module from "node:module";
import { Socket } from "node:net";
import { resolve } from "node:path";
import { parseWarmJob, type WarmJob } from "./warm-node-job";

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
channel.on("end", () => {
  if (!taken) process.exit(0);
});
channel.on("error", () => {
  if (!taken) process.exit(0);
});

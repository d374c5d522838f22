import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
} from "node:fs";
import { delimiter, join } from "node:path";
import type { Writable } from "node:stream";
import type { Logger } from "pino";
import { type WarmBootEnv, warmJobFor } from "../../../protocol/warm-job";
import { isSameProcessAlive, pidAlive, readStat } from "./proc";
import type { ProcessIdentity, ProcessRecord } from "./sandbox-meta";

/** What a detached command needs to be run in the warm process (commands.ts's SpawnSpec). */
export interface WarmSpawn {
  logs: string;
  cmd: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  onStarted: (rec: ProcessRecord) => void;
}

interface Waiting {
  child: ChildProcess;
  channel: Writable;
  identity: ProcessIdentity;
  /** The node binary it runs (real path). */
  node: string;
  out: string;
  err: string;
}

/** How long after a warm process is used the next one is started. */
export const REPLENISH_AFTER_MS = 2_000;

/** The first executable `name` on `path` (what spawn would run), as a real path; null if none. */
export function whichOn(name: string, path: string): string | null {
  for (const dir of path.split(delimiter)) {
    if (dir === "") continue;
    const candidate = join(dir, name);
    try {
      if (statSync(candidate).isFile()) return realpathSync(candidate);
    } catch {
      // not here
    }
  }
  return null;
}

/**
 * Wake speed (docs/local-provider.md, "Warm Node"): one Node.js process booted while a
 * sandbox is being created, so the sidecar launched right after does not wait for Node's own
 * start-up (on a 2-core machine about as long as the restore and provisioning together).
 * At most one waits at a time: started by the first create() (booting while it restores), and
 * again shortly after each use, so later wakes find it booted. It is used by the next detached
 * `node <script>` whose environment it can take on (protocol/warm-job.ts), else that command is
 * spawned as usual. A process that waits holds nothing of any sandbox.
 */
export class WarmNodePool {
  private waiting: Waiting | null = null;

  constructor(
    private readonly opts: { dir: string; bundle: string; boot: WarmBootEnv; logger: Logger },
  ) {}

  /** Starts a warm process unless one is waiting already. Never throws: a cold spawn still works. */
  prepare(): void {
    if (this.waiting && this.alive(this.waiting)) return;
    if (this.waiting) discard(this.waiting);
    this.waiting = null;
    try {
      this.waiting = this.spawn();
    } catch (err) {
      this.opts.logger.warn({ err }, "could not start a warm Node process; commands start cold");
    }
  }

  /**
   * Runs `spec` in the waiting process when it can: records it (`onStarted`, which may refuse
   * and kill it) before handing over the job, so it never runs unrecorded. null: spawn it cold.
   */
  take(spec: WarmSpawn, commandId: string): ProcessRecord | null {
    const w = this.waiting;
    if (!w) return null;
    const job = warmJobFor(spec.cmd, spec.args, spec.env, spec.cwd, this.opts.boot);
    if (!job || whichOn("node", spec.env.PATH ?? "") !== w.node) return null;
    this.waiting = null;
    if (!this.alive(w)) {
      discard(w);
      return null;
    }
    mkdirSync(spec.logs, { recursive: true });
    // Its output files become the command's, as a cold spawn's would be.
    moveQuietly(w.out, join(spec.logs, `${commandId}.out`));
    moveQuietly(w.err, join(spec.logs, `${commandId}.err`));
    const rec: ProcessRecord = {
      pid: w.identity.pid,
      startTime: w.identity.startTime,
      commandId,
      cmd: spec.cmd,
      startedAt: Date.now(),
    };
    spec.onStarted(rec);
    w.channel.end(`${JSON.stringify(job)}\n`);
    // The next one boots once this command's own start-up is over, so the next wake finds it
    // ready instead of booting it alongside the restore (and not competing with this start).
    setTimeout(() => this.prepare(), REPLENISH_AFTER_MS).unref();
    return rec;
  }

  private alive(w: Waiting): boolean {
    return (
      w.child.exitCode === null && w.child.signalCode === null && isSameProcessAlive(w.identity)
    );
  }

  private spawn(): Waiting | null {
    if (!existsSync(this.opts.bundle)) return null;
    const node = whichOn("node", this.opts.boot.PATH);
    if (!node) return null;
    mkdirSync(this.opts.dir, { recursive: true, mode: 0o700 });
    this.sweep();
    const base = join(this.opts.dir, `${process.pid}-${randomBytes(4).toString("hex")}`);
    const [out, err] = [`${base}.out`, `${base}.err`];
    const outFd = openSync(out, "a", 0o600);
    const errFd = openSync(err, "a", 0o600);
    const env: Record<string, string> = { ...this.opts.boot };
    let child: ChildProcess;
    try {
      // Its own session, as every sandbox command (stop() and the TTL kill its group).
      // The bundle runs only on the local provider, never in a Vercel function: not traced
      // (Next would otherwise trace the whole project into every function that imports this).
      child = spawn(/*turbopackIgnore: true*/ node, [this.opts.bundle], {
        cwd: this.opts.dir,
        env: env as NodeJS.ProcessEnv,
        detached: true,
        stdio: ["ignore", outFd, errFd, "pipe"],
      });
    } finally {
      closeSync(outFd);
      closeSync(errFd);
    }
    child.once("error", () => {});
    child.unref();
    const channel = child.stdio[3] as (Writable & { unref?: () => void }) | null;
    const stat = child.pid === undefined ? null : readStat(child.pid);
    if (!channel || !stat) {
      child.kill("SIGKILL");
      rmSync(out, { force: true });
      rmSync(err, { force: true });
      return null;
    }
    channel.on("error", () => {}); // it died: seen by alive() before use
    channel.unref?.(); // the server may exit while it waits (it exits then too)
    return {
      child,
      channel,
      identity: { pid: stat.pid, startTime: stat.startTime },
      node,
      out,
      err,
    };
  }

  /** Output files of warm processes whose server is gone (they exited with it, unused). */
  private sweep(): void {
    for (const name of readdirSync(this.opts.dir)) {
      const owner = Number(name.split("-")[0]);
      if (!Number.isInteger(owner) || owner === process.pid || pidAlive(owner)) continue;
      rmSync(join(this.opts.dir, name), { force: true });
    }
  }
}

function discard(w: Waiting): void {
  rmSync(w.out, { force: true });
  rmSync(w.err, { force: true });
}

function moveQuietly(from: string, to: string): void {
  try {
    renameSync(from, to);
  } catch {
    // another filesystem: the output stays in the warm directory
  }
}

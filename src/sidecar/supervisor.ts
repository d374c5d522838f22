import { type ChildProcess, spawn } from "node:child_process";
import type { DaemonStatus } from "../protocol/heartbeat";
import { LineSplitter, type Logger } from "./log-file";
import { probePort } from "./port-probe";
import {
  countAlive,
  descendantsOf,
  type ProcEntry,
  readProcTable,
  signalAlive,
} from "./process-tree";
import {
  decideOnExit,
  type RestartHistory,
  type RestartPolicyTimings,
  restartsAfterStableRun,
} from "./restart-policy";

export interface SupervisorTimings extends RestartPolicyTimings {
  probeIntervalMs: number;
  startupProbeMs: number;
  notListeningWarnMs: number;
  shutdownGraceMs: number;
}

export interface SupervisorOptions {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  /** The daemon's real listen port, probed on 127.0.0.1. */
  port: number;
  timings: SupervisorTimings;
  log: Logger;
  onStatusChange?: (status: DaemonStatus) => void;
  now?: () => number;
}

export interface SupervisorSnapshot {
  status: DaemonStatus;
  pid: number | null;
  restarts: number;
}

/**
 * Keeps the agent daemon alive (docs/sidecar.md, "Daemon statuses"): spawn, probe its port, restart on exit per
 * restart-policy, report `starting | running | stopped | failed`. The daemon is NOT
 * detached: it stays in the sidecar's process group so the sandbox can kill everything.
 */
export class Supervisor {
  private child: ChildProcess | null = null;
  private generation = 0;
  private exitedGeneration = 0;
  private status: DaemonStatus = "starting";
  private restarts = 0;
  private runningSince: number | null = null;
  private notListeningSince = 0;
  private warned = false;
  private probeTimer: NodeJS.Timeout | null = null;
  private restartTimer: NodeJS.Timeout | null = null;
  private stopping: Promise<void> | null = null;
  private exitWaiters: Array<() => void> = [];
  private readonly now: () => number;

  constructor(private readonly opts: SupervisorOptions) {
    this.now = opts.now ?? Date.now;
  }

  snapshot(): SupervisorSnapshot {
    return { status: this.status, pid: this.child?.pid ?? null, restarts: this.restarts };
  }

  /**
   * Spawns the daemon, or adopts one spawned ahead of the sidecar (./early-daemon.ts) with
   * how it ended if it already did.
   */
  start(adopt?: { child: ChildProcess; ended: string | null }): void {
    this.spawnDaemon(adopt);
  }

  /** SIGTERM, up to shutdownGraceMs for a graceful exit, then SIGKILL of what is left. */
  stop(): Promise<void> {
    this.stopping ??= this.terminate().then(() => this.setStatus("stopped"));
    return this.stopping;
  }

  private spawnDaemon(adopt?: { child: ChildProcess; ended: string | null }): void {
    const gen = ++this.generation;
    const { command, args, env, cwd, log } = this.opts;
    this.runningSince = null;
    this.notListeningSince = this.now();
    this.warned = false;
    this.setStatus("starting");
    let child: ChildProcess;
    try {
      // Built explicitly by daemon-env (no heartbeat secret); Next types demand NODE_ENV.
      const childEnv = env as NodeJS.ProcessEnv;
      child =
        adopt?.child ??
        spawn(command, args, { cwd, env: childEnv, stdio: ["ignore", "pipe", "pipe"] });
    } catch (err) {
      this.onExit(gen, `spawn failed: ${(err as Error).message}`);
      return;
    }
    this.child = child;
    this.capture(child, "stdout", "[daemon:out]");
    this.capture(child, "stderr", "[daemon:err]");
    if (adopt?.ended) {
      this.onExit(gen, adopt.ended); // it ended before it was adopted: the usual restart policy
      return;
    }
    // A spawn failure (ENOENT, EACCES) emits "error" and never "exit".
    child.once("error", (err) => {
      if (child.pid === undefined) this.onExit(gen, `spawn failed: ${err.message}`);
      else log.error(`daemon: ${err.message}`);
    });
    child.once("exit", (code, signal) =>
      this.onExit(gen, signal ? `signal ${signal}` : `exit code ${code}`),
    );
    if (child.pid !== undefined) {
      log.info(`daemon started (pid ${child.pid}): ${[command, ...args].join(" ")}`);
      this.scheduleProbe(gen);
    }
  }

  private capture(child: ChildProcess, stream: "stdout" | "stderr", prefix: string): void {
    const source = child[stream];
    if (!source) return;
    const splitter = new LineSplitter((line) => this.opts.log.info(`${prefix} ${line}`));
    source.setEncoding("utf8"); // decodes multi-byte characters split across chunks
    source.on("data", (chunk: string) => splitter.push(chunk));
    source.on("end", () => splitter.flush());
  }

  private scheduleProbe(gen: number): void {
    const { probeIntervalMs, startupProbeMs } = this.opts.timings;
    // Fast until the daemon first listens; 5× slower after the not-listening warning (a long start).
    const starting = this.warned ? startupProbeMs * 5 : startupProbeMs;
    const every = this.status === "running" ? probeIntervalMs : Math.min(starting, probeIntervalMs);
    this.probeTimer = setTimeout(() => void this.probe(gen), every);
  }

  private async probe(gen: number): Promise<void> {
    const { timings, port, log } = this.opts;
    const listening = await probePort(port, "127.0.0.1", timings.probeIntervalMs);
    if (gen !== this.generation || this.stopping || !this.child) return;
    const now = this.now();
    if (listening) {
      if (this.status !== "running") {
        this.runningSince = now;
        log.info(`daemon listening on port ${port}`);
        this.setStatus("running");
      } else if (this.restarts > 0 && restartsAfterStableRun(this.history(), now, timings) === 0) {
        log.info(`daemon stable for ${timings.stableResetMs} ms: restart counter reset`);
        this.restarts = 0;
      }
    } else if (this.status === "running") {
      log.warn(`daemon (pid ${this.child.pid}) stopped accepting on port ${port}`);
      this.runningSince = null;
      this.notListeningSince = now;
      this.warned = false;
      this.setStatus("starting");
    } else if (!this.warned && now - this.notListeningSince >= timings.notListeningWarnMs) {
      // A daemon slow to listen is a warning, not a timeout: probing goes on (docs/sidecar.md).
      this.warned = true;
      log.warn(
        `daemon not listening on port ${port} after ${timings.notListeningWarnMs} ms; still probing`,
      );
    }
    this.scheduleProbe(gen);
  }

  private onExit(gen: number, how: string): void {
    // "error" and "exit" may both report one spawn; a stale generation is already handled.
    if (gen !== this.generation || gen <= this.exitedGeneration) return;
    this.exitedGeneration = gen;
    if (this.probeTimer) clearTimeout(this.probeTimer);
    this.child = null;
    for (const wake of this.exitWaiters.splice(0)) wake();
    if (this.stopping) return;
    const { log, timings } = this.opts;
    const decision = decideOnExit(this.history(), this.now(), timings);
    this.restarts = decision.restarts;
    this.runningSince = null;
    if (decision.action === "fail") {
      log.error(`daemon ${how}; gave up after ${decision.restarts} restarts: status failed`);
      this.setStatus("failed");
      return;
    }
    log.warn(
      `daemon ${how}; restart ${decision.restarts}/${timings.maxRestarts} in ${decision.delayMs} ms`,
    );
    this.setStatus("starting");
    this.restartTimer = setTimeout(() => this.spawnDaemon(), decision.delayMs);
  }

  private history(): RestartHistory {
    return { restarts: this.restarts, runningSince: this.runningSince };
  }

  private setStatus(status: DaemonStatus): void {
    if (status === this.status) return;
    this.status = status;
    this.opts.onStatusChange?.(status);
  }

  private async terminate(): Promise<void> {
    if (this.probeTimer) clearTimeout(this.probeTimer);
    if (this.restartTimer) clearTimeout(this.restartTimer);
    const child = this.child;
    const pid = child?.pid;
    if (!child || pid === undefined) return;
    const { log, timings } = this.opts;
    let exited = false;
    const exitedP = new Promise<void>((resolve) => this.exitWaiters.push(resolve)).then(() => {
      exited = true;
    });
    // Remember the daemon's descendants while it lives: once it exits they are reparented
    // and can no longer be found through it.
    const tracked = new Map<number, ProcEntry>();
    const track = (): void => {
      const table = readProcTable();
      if (!table) return;
      for (const p of descendantsOf(pid, table)) if (!tracked.has(p.pid)) tracked.set(p.pid, p);
    };
    track();
    log.info(`stopping daemon (pid ${pid}): SIGTERM, grace ${timings.shutdownGraceMs} ms`);
    child.kill("SIGTERM");
    const deadline = Date.now() + timings.shutdownGraceMs;
    let childrenTermed = false;
    while (Date.now() < deadline) {
      if (!exited) track();
      else if (!childrenTermed) {
        childrenTermed = true; // the daemon is gone: let what it left behind exit gracefully too
        if (signalAlive(tracked.values(), "SIGTERM") === 0) break;
      } else if (countAlive(tracked.values()) === 0) break;
      const tick = sleep(Math.min(50, timings.shutdownGraceMs));
      // Wake early on the daemon's exit, but only once: a settled race would spin.
      await (exited ? tick : Promise.race([exitedP, tick]));
    }
    if (!exited) {
      log.warn(`daemon (pid ${pid}) still running after ${timings.shutdownGraceMs} ms: SIGKILL`);
      track();
      child.kill("SIGKILL");
    }
    const killed = signalAlive(tracked.values(), "SIGKILL");
    if (killed > 0) {
      log.warn(`killed ${killed} leftover daemon process(es)`);
      // SIGKILL is delivered asynchronously: return only once they are really gone.
      for (let i = 0; i < 50 && countAlive(tracked.values()) > 0; i++) await sleep(20);
    }
    if (!exited) await Promise.race([exitedP, sleep(2000)]);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

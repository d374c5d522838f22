import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { closeSync, mkdirSync, openSync } from "node:fs";
import { constants } from "node:os";
import { join } from "node:path";
import type { CommandResult } from "../types";
import { ProviderError } from "../types";
import { readStat } from "./proc";
import type { ProcessRecord, SandboxLayout } from "./sandbox-meta";
import type { WarmNodePool } from "./warm-node-pool";

/** Cap on the captured output of one foreground command, so a chatty one cannot exhaust memory. */
export const MAX_CAPTURE_BYTES = 16 * 1024 * 1024;

/**
 * Pure: the environment of a process in the sandbox. Starts from a minimal set instead of
 * the server's own environment, which holds ClawRun's secrets (docs/architecture.md: secrets never reach a sandbox's environment).
 * `~/.local/bin` leads PATH because tools are installed there (clawrun.json `tools`).
 */
/** The host environment sandbox processes may see: basics only, never the server's secrets. */
export interface HostEnv {
  PATH: string;
  LANG?: string;
  TZ?: string;
}

export function sandboxEnv(
  root: string,
  baseEnv: Readonly<Record<string, string>>,
  given: Readonly<Record<string, string>> | undefined,
  host: Readonly<HostEnv>,
): Record<string, string> {
  const env: Record<string, string> = {
    PATH: `${root}/.local/bin:${host.PATH}`,
    LANG: host.LANG ?? "C.UTF-8",
    HOME: root,
  };
  if (host.TZ) env.TZ = host.TZ;
  return { ...env, ...baseEnv, ...given };
}

export interface SpawnSpec {
  layout: SandboxLayout;
  cmd: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  /** Called with the new group before anything else can happen to it. */
  onStarted: (rec: ProcessRecord) => void;
  /** Foreground only: aborting kills the command's whole group and rejects with the reason. */
  signal?: AbortSignal;
}

function newCommandId(): string {
  return `cmd_${randomBytes(8).toString("hex")}`;
}

function started(child: ChildProcess, spec: SpawnSpec, commandId: string): Promise<ProcessRecord> {
  const pid = child.pid;
  if (pid === undefined) {
    // spawn failed synchronously enough to have no pid; the reason arrives as 'error'.
    return new Promise((_, reject) =>
      child.once("error", (err) =>
        reject(new ProviderError(`cannot run "${spec.cmd}": ${err.message}`, err)),
      ),
    );
  }
  // The start time is fixed at fork, so it can be read even before the child has exec'd.
  const stat = readStat(pid);
  const rec: ProcessRecord = {
    pid,
    startTime: stat?.startTime ?? 0,
    commandId,
    cmd: spec.cmd,
    startedAt: Date.now(),
  };
  spec.onStarted(rec);
  return Promise.resolve(rec);
}

/**
 * Runs in a new session and process group (`detached` means setsid on POSIX), so the TTL and
 * stop() can kill it with its children. Waits for exit, not for the pipes to close: a
 * background grandchild may hold them open forever.
 */
export async function runForeground(spec: SpawnSpec): Promise<CommandResult> {
  spec.signal?.throwIfAborted();
  const child = spawn(spec.cmd, spec.args, {
    cwd: spec.cwd,
    env: spec.env as NodeJS.ProcessEnv, // Next's typings demand NODE_ENV, which sandboxes do not get
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const out = { stdout: [] as Buffer[], stderr: [] as Buffer[], sizes: { stdout: 0, stderr: 0 } };
  for (const name of ["stdout", "stderr"] as const) {
    child[name]?.on("data", (chunk: Buffer) => {
      if (out.sizes[name] >= MAX_CAPTURE_BYTES) return;
      out[name].push(chunk.subarray(0, MAX_CAPTURE_BYTES - out.sizes[name]));
      out.sizes[name] += chunk.length;
    });
  }
  const exited = new Promise<number>((resolve) =>
    child.once("exit", (code, signal) => resolve(code ?? 128 + signalNumber(signal))),
  );
  // Listened for from the start: a close that comes with the exit must not be missed.
  const closed = new Promise((resolve) => child.once("close", resolve));
  const rec = await started(child, spec, newCommandId());
  const onAbort = () => {
    try {
      process.kill(-rec.pid, "SIGKILL");
    } catch {
      // already gone
    }
  };
  spec.signal?.addEventListener("abort", onAbort, { once: true });
  if (spec.signal?.aborted) onAbort();
  let exitCode: number;
  try {
    exitCode = await exited;
  } finally {
    spec.signal?.removeEventListener("abort", onAbort);
  }
  spec.signal?.throwIfAborted();
  // Output already written is still in the pipes; give it a moment to arrive.
  await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, 200))]);
  child.stdout?.destroy();
  child.stderr?.destroy();
  return {
    exitCode,
    stdout: Buffer.concat(out.stdout).toString("utf8"),
    stderr: Buffer.concat(out.stderr).toString("utf8"),
  };
}

/** Shell convention: a command killed by signal N exits with 128 + N. */
function signalNumber(signal: NodeJS.Signals | null): number {
  return (signal && constants.signals[signal]) || 1;
}

/**
 * Returns at once. Output goes to log files under the sandbox directory (never pipes to the
 * server), and the child is unref'd, so it outlives this call and the server itself. A
 * `node <script>` runs in the provider's warm Node process when one waits (warm-node-pool.ts).
 */
export async function runDetached(spec: SpawnSpec, warm?: WarmNodePool): Promise<ProcessRecord> {
  const commandId = newCommandId();
  const warmed = warm?.take({ ...spec, logs: spec.layout.logs }, commandId);
  if (warmed) return warmed;
  mkdirSync(spec.layout.logs, { recursive: true });
  const stdout = openSync(join(spec.layout.logs, `${commandId}.out`), "a", 0o600);
  const stderr = openSync(join(spec.layout.logs, `${commandId}.err`), "a", 0o600);
  try {
    const child = spawn(spec.cmd, spec.args, {
      cwd: spec.cwd,
      env: spec.env as NodeJS.ProcessEnv,
      detached: true,
      stdio: ["ignore", stdout, stderr],
    });
    child.unref();
    return await started(child, spec, commandId);
  } finally {
    closeSync(stdout);
    closeSync(stderr);
  }
}

import { spawn } from "node:child_process";
import { closeSync, existsSync, mkdirSync, openSync } from "node:fs";
import { setPriority } from "node:os";
import { join } from "node:path";
import { ProviderError } from "../types";
import { isSameProcessAlive, readStat } from "./proc";
import {
  type ProcessIdentity,
  processIdentitySchema,
  readJson,
  type SandboxLayout,
  writeJsonAtomic,
} from "./sandbox-meta";

/**
 * Starts the sandbox's watchdog as its own session, detached and unref'd with output to a
 * log file, so it outlives the server, and records its identity (pid + start time, fixed at
 * fork) in watchdog.json at once. Wake speed: create() no longer waits for the watchdog's
 * Node.js to boot (the slowest part of a local restore); from this moment the sandbox
 * counts as guarded while that process lives, and a watchdog that dies at boot leaves the
 * sandbox reported `failed` (processes unguarded) or `stopped`, which the lifecycle handles
 * like any dead sandbox. The TTL is minutes; the boot takes milliseconds.
 */
export function launchWatchdog(
  layout: SandboxLayout,
  bundle: string,
  /** PATH for the watchdog: it needs nothing else (the server's secrets stay out of it). */
  path: string,
): ProcessIdentity {
  if (!existsSync(bundle)) {
    throw new ProviderError(
      `${bundle} is missing: run "npm run bundle" (npm run dev/build do it for you)`,
    );
  }
  mkdirSync(layout.logs, { recursive: true });
  const logFd = openSync(join(layout.logs, "watchdog.log"), "a", 0o600);
  // Only what node needs: the server's secrets stay out of it.
  const env: Record<string, string> = { PATH: path };
  let pid: number | undefined;
  try {
    const child = spawn(process.execPath, [bundle, layout.dir], {
      cwd: layout.dir,
      env: env as NodeJS.ProcessEnv,
      detached: true,
      stdio: ["ignore", logFd, logFd],
    });
    child.once("error", () => {}); // no pid: reported below; the log file has the rest
    child.unref();
    pid = child.pid;
    // Its boot overlaps the agent's start on a busy machine: let the agent have the CPU first.
    if (pid !== undefined) lowerPriority(pid);
  } finally {
    closeSync(logFd);
  }
  const stat = pid === undefined ? null : readStat(pid);
  if (!stat) throw new ProviderError("the sandbox watchdog could not be started");
  const identity: ProcessIdentity = { pid: stat.pid, startTime: stat.startTime };
  writeJsonAtomic(layout.watchdog, identity);
  return identity;
}

/** Niceness 10: still scheduled within milliseconds, far inside a TTL of minutes. */
function lowerPriority(pid: number): void {
  try {
    setPriority(pid, 10);
  } catch {
    // not permitted here: it runs at normal priority, which is only slower to wake
  }
}

/** Asks the watchdog to exit (it would anyway, seeing the sandbox stopped, within one poll). */
export function stopWatchdog(layout: SandboxLayout): void {
  const identity = readJson(layout.watchdog, processIdentitySchema);
  if (!identity || !isSameProcessAlive(identity)) return;
  try {
    process.kill(identity.pid, "SIGTERM");
  } catch {
    // already gone
  }
}

export function watchdogAlive(layout: SandboxLayout): boolean {
  const identity = readJson(layout.watchdog, processIdentitySchema);
  return identity !== null && isSameProcessAlive(identity);
}

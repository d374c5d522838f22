import { spawn } from "node:child_process";
import { closeSync, existsSync, mkdirSync, openSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { ProviderError } from "../types";
import { isSameProcessAlive } from "./proc";
import {
  type ProcessIdentity,
  processIdentitySchema,
  readJson,
  type SandboxLayout,
} from "./sandbox-meta";

/**
 * Starts the sandbox's watchdog as its own session, detached and unref'd with output to a
 * log file, so it outlives the server; waits until it has announced itself in
 * watchdog.json, which proves the bundle runs and the TTL is enforced before create() returns.
 */
export async function launchWatchdog(
  layout: SandboxLayout,
  bundle: string,
  /** PATH for the watchdog: it needs nothing else (the server's secrets stay out of it). */
  path: string,
  handshakeTimeoutMs = 10_000,
): Promise<ProcessIdentity> {
  if (!existsSync(bundle)) {
    throw new ProviderError(
      `${bundle} is missing: run "npm run bundle" (npm run dev/build do it for you)`,
    );
  }
  mkdirSync(layout.logs, { recursive: true });
  const logFd = openSync(join(layout.logs, "watchdog.log"), "a", 0o600);
  let exitCode: number | null = null;
  // Only what node needs: the server's secrets stay out of it.
  const env: Record<string, string> = { PATH: path };
  try {
    const child = spawn(process.execPath, [bundle, layout.dir], {
      cwd: layout.dir,
      env: env as NodeJS.ProcessEnv,
      detached: true,
      stdio: ["ignore", logFd, logFd],
    });
    child.once("exit", (code) => {
      exitCode = code ?? 1;
    });
    child.once("error", () => {
      exitCode = 127;
    });
    child.unref();
  } finally {
    closeSync(logFd);
  }
  const until = Date.now() + handshakeTimeoutMs;
  while (Date.now() < until && exitCode === null) {
    const identity = readJson(layout.watchdog, processIdentitySchema);
    if (identity && isSameProcessAlive(identity)) return identity;
    await sleep(10);
  }
  throw new ProviderError(
    exitCode === null
      ? `the sandbox watchdog did not start within ${handshakeTimeoutMs} ms`
      : `the sandbox watchdog exited with code ${exitCode}; see ${join(layout.logs, "watchdog.log")}`,
  );
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

import { type ChildProcess, spawn } from "node:child_process";
import { createWriteStream } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { buildChildEnv } from "../../src/sidecar/daemon-env";
import { sandboxBaseEnv } from "./sandbox-home";

/**
 * Runs `openclaw gateway` from a sandbox root the way the sidecar would: cwd and HOME = the
 * root, `~/.local/bin` first on PATH, the daemon env on top, output to a log file.
 */
export interface RunningGateway {
  child: ChildProcess;
  port: number;
  log: string;
  stop(): Promise<void>;
}

export function startGateway(
  root: string,
  port: number,
  env: Record<string, string>,
): RunningGateway {
  const log = join(root, "..", `gateway-${port}.log`);
  const out = createWriteStream(log);
  const child = spawn(".local/bin/openclaw", ["gateway", "--port", String(port)], {
    cwd: root,
    env: buildChildEnv({
      base: sandboxBaseEnv(root),
      root,
      extra: env,
    }) as NodeJS.ProcessEnv,
    stdio: ["ignore", "pipe", "pipe"],
    // Its own process group, so stopping it also stops the helpers it spawns.
    detached: true,
  });
  child.stdout?.pipe(out);
  child.stderr?.pipe(out);
  return {
    child,
    port,
    log,
    stop: () => stopGroup(child),
  };
}

async function stopGroup(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.pid === undefined) return;
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  process.kill(-child.pid, "SIGTERM");
  const timer = setTimeout(() => {
    if (child.pid !== undefined && child.exitCode === null) process.kill(-child.pid, "SIGKILL");
  }, 20_000);
  await exited;
  clearTimeout(timer);
}

/** Polls `path` until it answers 200; returns the milliseconds it took. */
export async function waitForStatus200(
  baseUrl: string,
  path: string,
  child: ChildProcess,
  timeoutMs = 300_000,
): Promise<number> {
  const start = performance.now();
  while (performance.now() - start < timeoutMs) {
    if (child.exitCode !== null) throw new Error(`gateway exited with ${child.exitCode}`);
    try {
      const res = await fetch(`${baseUrl}${path}`, { signal: AbortSignal.timeout(2_000) });
      await res.arrayBuffer();
      if (res.status === 200) return performance.now() - start;
    } catch {
      // Not listening yet.
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${path} did not answer 200 within ${timeoutMs} ms`);
}

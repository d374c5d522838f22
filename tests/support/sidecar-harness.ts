/**
 * Helpers for the sidecar's tests (real processes, real sockets). Not imported by the
 * sidecar itself, so never bundled.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SidecarConfigInput } from "../../src/protocol/sidecar-config";
import { doorSignatureHeaders } from "../../src/protocol/signing";
import type { Logger } from "../../src/sidecar/log-file";
import { readProc } from "../../src/sidecar/process-tree";

export function tempDir(prefix = "clawrun-sidecar-"): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Polls until `check` returns a truthy value; fails with `what` after timeoutMs. The default is
 * a bound for a test that has failed, not a speed assertion: on a loaded 2-core machine a
 * daemon restarted 5 times (6 Node spawns) took over 5 s.
 */
export async function waitFor<T>(
  what: string,
  check: () => T | Promise<T>,
  timeoutMs = 20_000,
  intervalMs = 20,
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(intervalMs);
  }
}

/** A Logger that keeps lines in memory. */
export class MemoryLog implements Logger {
  readonly lines: string[] = [];
  info(message: string): void {
    this.lines.push(`INFO ${message}`);
  }
  warn(message: string): void {
    this.lines.push(`WARN ${message}`);
  }
  error(message: string): void {
    this.lines.push(`ERROR ${message}`);
  }
  has(pattern: RegExp): boolean {
    return this.lines.some((l) => pattern.test(l));
  }
}

export interface ReceivedHeartbeat {
  headers: IncomingHttpHeaders;
  raw: string;
  receivedAt: number;
}

/** The test parent: records every POST /api/heartbeat and answers `status`. */
export interface TestParent {
  url: string;
  received: ReceivedHeartbeat[];
  /** Highest number of requests open at the same time. */
  maxConcurrent: number;
  status: number;
  /** Delay before answering (slow or hanging parent). */
  delayMs: number;
  close(): Promise<void>;
}

export async function startParent(): Promise<TestParent> {
  let open = 0;
  const parent: TestParent = {
    url: "",
    received: [],
    maxConcurrent: 0,
    status: 200,
    delayMs: 0,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
  const server: Server = createServer((req, res) => {
    open++;
    parent.maxConcurrent = Math.max(parent.maxConcurrent, open);
    let raw = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => {
      raw += chunk;
    });
    req.on("end", () => {
      if (req.method === "POST" && req.url === "/api/heartbeat") {
        parent.received.push({ headers: req.headers, raw, receivedAt: Date.now() });
      }
      setTimeout(() => {
        open--;
        res.writeHead(parent.status, { "content-type": "application/json" });
        res.end(JSON.stringify({ action: "none", reason: "test" }));
      }, parent.delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  parent.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return parent;
}

/** Arguments for `node -e <script>`: test daemons are tiny inline programs. */
export function nodeDaemon(script: string): { command: string; args: string[] } {
  return { command: process.execPath, args: ["-e", script] };
}

/** A daemon that serves HTTP on $PORT. */
export const LISTENING_DAEMON = `require("node:http").createServer((q, s) => s.end("ok")).listen(Number(process.env.PORT), "127.0.0.1");`;

/** True while the process exists and is not a zombie. */
export function processAlive(pid: number): boolean {
  const entry = readProc(pid);
  return entry !== null && !entry.zombie;
}

export interface BundledSidecar {
  child: ChildProcess;
  dir: string;
  healthPort: number;
  daemonPort: number;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Kills the sidecar's whole process group (a test that failed midway must not leak). */
  kill(): void;
}

/**
 * Copies build/bundles/sidecar.js (built by the vitest global setup) into an empty temp
 * directory, so no node_modules can be resolved, and runs it the way the server does:
 * detached (its own process group), secret in the environment, mapped ports.
 */
export async function runBundledSidecar(
  config: Omit<SidecarConfigInput, "healthPort"> & { healthPort?: number },
  secret: string,
  extraEnv: Record<string, string> = {},
): Promise<BundledSidecar> {
  const dir = tempDir("clawrun-bundle-");
  copyFileSync(join(process.cwd(), "build", "bundles", "sidecar.js"), join(dir, "sidecar.js"));
  writeFileSync(join(dir, "config.json"), JSON.stringify(config));
  const healthPort = await freePort();
  const daemonPort = await freePort();
  const child = spawn(process.execPath, ["sidecar.js", "config.json"], {
    cwd: dir,
    detached: true,
    stdio: ["ignore", "ignore", "pipe"],
    env: {
      ...process.env,
      CLAWRUN_HB_SECRET: secret,
      [`CLAWRUN_PORT_${config.healthPort ?? 3001}`]: String(healthPort),
      [`CLAWRUN_PORT_${config.daemon.port ?? 3000}`]: String(daemonPort),
      ...extraEnv,
    },
  });
  let stderr = "";
  child.stderr?.setEncoding("utf8");
  child.stderr?.on("data", (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  return {
    child,
    dir,
    healthPort,
    daemonPort,
    stderr: () => stderr,
    exited,
    kill: () => {
      try {
        if (child.pid) process.kill(-child.pid, "SIGKILL");
      } catch {
        // already gone
      }
    },
  };
}

/** A request to a sidecar's door, signed as ClawRun signs it (src/protocol/signing.ts). */
export async function doorFetch(
  port: number,
  secret: string,
  path: string,
  init: { method?: string; body?: string; headers?: Record<string, string> } = {},
): Promise<Response> {
  const method = init.method ?? "GET";
  const body = init.body ?? "";
  return fetch(`http://127.0.0.1:${port}${path}`, {
    method,
    headers: { ...init.headers, ...doorSignatureHeaders(secret, method, path, body) },
    body: method === "GET" ? undefined : body,
  });
}

export async function fetchHealth(
  port: number,
  secret: string,
): Promise<{ status: number; body: unknown }> {
  const res = await doorFetch(port, secret, "/health");
  return { status: res.status, body: await res.json() };
}

import { type ChildProcess, spawn } from "node:child_process";
import { rmSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { createConnection, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * A throwaway `redis-server` for tests and benchmarks: loopback only, on a port the OS hands
 * out (never 6379), no persistence, its own temp dir. Nothing here ever connects to a Redis
 * it did not start. A missing redis-server is an error, not a skip.
 */
export interface RedisServer {
  url: string;
  port: number;
  stop(): Promise<void>;
}

const DEFAULT_PORT = 6379;

/** Servers not stopped yet; killed if the process exits first, so none outlive a crashed run. */
const live = new Map<ChildProcess, string>();
process.once("exit", () => {
  for (const [child, dir] of live) {
    child.kill("SIGKILL");
    if (dir) rmSync(dir, { recursive: true, force: true });
  }
});

export interface RedisServerOptions {
  port?: number;
  /**
   * Keep the data in this directory (append-only file, fsync on every write) and leave it
   * there on stop: a server started again on the same port and directory finds its data, as
   * a production Redis that restarts does. Without it nothing is persisted.
   */
  dataDir?: string;
}

export async function startRedisServer(opts: RedisServerOptions = {}): Promise<RedisServer> {
  let lastError: unknown;
  // A free port can be taken between asking and binding; try a few before giving up.
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = opts.port ?? (await freePort());
    try {
      return await launch(port, opts.dataDir);
    } catch (err) {
      lastError = err;
      if (opts.port !== undefined || !/address already in use/i.test(String(err))) throw err;
    }
  }
  throw lastError;
}

async function launch(port: number, dataDir?: string): Promise<RedisServer> {
  if (port === DEFAULT_PORT) throw new Error("refusing to start a test redis-server on 6379");
  const dir = dataDir ?? (await mkdtemp(join(tmpdir(), "clawrun-redis-")));
  const persistence = dataDir
    ? ["--appendonly", "yes", "--appendfsync", "always"]
    : ["--appendonly", "no"];
  const child = spawn(
    "redis-server",
    [
      "--port",
      String(port),
      "--bind",
      "127.0.0.1",
      "--save",
      "",
      ...persistence,
      "--dir",
      dir,
      "--daemonize",
      "no",
      "--loglevel",
      "warning",
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  let output = "";
  child.stdout?.on("data", (d: Buffer) => {
    output += d.toString();
  });
  child.stderr?.on("data", (d: Buffer) => {
    output += d.toString();
  });
  const exited = new Promise<string>((resolve) => {
    child.once("error", (err: NodeJS.ErrnoException) => {
      resolve(
        err.code === "ENOENT"
          ? "redis-server is not on PATH: install it (bash scripts/ensure-system-deps.sh, or apt-get install redis-server)"
          : `redis-server could not start: ${err.message}`,
      );
    });
    child.once("exit", (code, signal) => {
      resolve(`redis-server exited (${signal ?? code}) before answering PING:\n${output.trim()}`);
    });
  });

  live.set(child, dataDir ? "" : dir);
  const stop = async () => {
    await kill(child);
    live.delete(child);
    if (!dataDir) await rm(dir, { recursive: true, force: true });
  };
  const outcome = await Promise.race([waitForPong(port, 10_000), exited]);
  if (outcome !== true) {
    await stop();
    throw new Error(typeof outcome === "string" ? outcome : "redis-server did not answer PING");
  }
  return { url: `redis://127.0.0.1:${port}`, port, stop };
}

/** Asks the OS for an unused loopback port. */
async function freePort(): Promise<number> {
  for (;;) {
    const port = await new Promise<number>((resolve, reject) => {
      const srv = createServer();
      srv.once("error", reject);
      srv.listen(0, "127.0.0.1", () => {
        const address = srv.address();
        const p = typeof address === "object" && address ? address.port : 0;
        srv.close(() => resolve(p));
      });
    });
    if (port !== DEFAULT_PORT && port !== 0) return port;
  }
}

/** Polls with a raw PING on our own port until +PONG or the deadline. */
async function waitForPong(port: number, timeoutMs: number): Promise<boolean | undefined> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await pingOnce(port)) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return false;
}

function pingOnce(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: "127.0.0.1", port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.once("error", () => done(false));
    socket.once("connect", () => socket.write("PING\r\n"));
    socket.once("data", (d) => done(d.toString().startsWith("+PONG")));
  });
}

async function kill(child: ChildProcess): Promise<void> {
  // No pid: it never started (ENOENT), so there is nothing to wait for.
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 3_000);
  await gone;
  clearTimeout(timer);
}

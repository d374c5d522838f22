import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import type { LifecycleTimings } from "../../src/config/constants";
import { LocalProvider } from "../../src/server/providers/local/local-provider";
import { freePort, waitFor } from "./free-port";
import { waitForNextBuild } from "./next-build";

export interface ClawrunServer {
  url: string;
  port: number;
  stateDir: string;
  secrets: { clawrun: string; admin: string; cron: string; webhook: string };
  /** ClawRun's own variables the server runs with (a CLI run with them sees the same deployment). */
  env: Record<string, string>;
  /** Everything the server printed, for failure messages. */
  output(): string;
  stop(): Promise<void>;
  /** Stops only the server process (to see clients notice it is gone); resume() starts it again. */
  halt(): Promise<void>;
  resume(): Promise<void>;
}

export interface StartOptions {
  /** clawrun.json contents (omitted: defaults, i.e. the echo agent on the local provider). */
  config?: unknown;
  timings?: Partial<LifecycleTimings>;
  env?: Record<string, string>;
  /** Listen on this port (default: a free one), e.g. to come back where a stopped server was. */
  port?: number;
  /** Variables to leave out, e.g. a secret the server should generate as a local run does. */
  unset?: string[];
}

/**
 * The real production server (`next start`, built by the global setup, waited for while it
 * builds) on a free port, with its own state dir, config and secrets. stop() also stops every
 * sandbox it started, since local sandboxes deliberately outlive the server.
 */
export async function startClawrun(opts: StartOptions = {}): Promise<ClawrunServer> {
  await waitForNextBuild();
  const stateDir = mkdtempSync(join(tmpdir(), "clawrun-e2e-"));
  const configPath = join(stateDir, "clawrun.json");
  writeFileSync(configPath, JSON.stringify(opts.config ?? {}));
  const port = opts.port ?? (await freePort());
  const url = `http://127.0.0.1:${port}`;
  const secrets = { clawrun: rand(), admin: rand(), cron: rand(), webhook: rand() };
  let output = "";
  const env: Record<string, string> = {
    NODE_ENV: "production",
    NEXT_TELEMETRY_DISABLED: "1",
    CLAWRUN_STATE_DIR: stateDir,
    CLAWRUN_CONFIG: configPath,
    CLAWRUN_PUBLIC_URL: url,
    CLAWRUN_SECRET: secrets.clawrun,
    ADMIN_SECRET: secrets.admin,
    CRON_SECRET: secrets.cron,
    CLAWRUN_WEBHOOK_SECRET: secrets.webhook,
    CLAWRUN_TIMINGS: JSON.stringify(opts.timings ?? {}),
    LOG_LEVEL: process.env.CLAWRUN_TEST_LOG_LEVEL ?? "warn",
    // halt() means "the server goes away, its sandboxes stay" (restart tests); putting the
    // agent to sleep on exit is tested on its own (tests/operator/server-stop.test.ts).
    CLAWRUN_ON_EXIT: "keep",
    ...opts.env,
  };
  for (const name of opts.unset ?? []) delete env[name];
  const launch = () => {
    const proc: ChildProcess = spawn(
      process.execPath,
      ["node_modules/next/dist/bin/next", "start", "-p", String(port), "-H", "127.0.0.1"],
      {
        env: { ...withoutNames(process.env, opts.unset ?? []), ...env },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    proc.stdout?.on("data", (d) => {
      output += d;
    });
    proc.stderr?.on("data", (d) => {
      output += d;
    });
    const gone = new Promise<void>((resolve) => proc.once("exit", () => resolve()));
    return { proc, gone };
  };
  let { proc: child, gone: exited } = launch();

  /** Ends the server process only; sandboxes and state stay (they outlive it on purpose). */
  const halt = async () => {
    if (child.exitCode === null) {
      child.kill("SIGTERM");
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5_000))]);
      if (child.exitCode === null) child.kill("SIGKILL");
    }
  };
  const ready = () =>
    waitFor(
      "the ClawRun server",
      async () => (await fetch(`${url}/api/health`)).status > 0,
      30_000,
      100,
    );

  const stop = async () => {
    await halt();
    const provider = new LocalProvider({ stateDir, logger: pino({ level: "silent" }) });
    for (const s of await provider.list().catch(() => [])) {
      await (await provider.get(s.id)).stop().catch(() => undefined);
    }
    // Agent layers are read-only (even to their owner): writable again so they can be removed.
    spawnSync("chmod", ["-R", "u+w", stateDir]);
    rmSync(stateDir, { recursive: true, force: true });
  };
  try {
    await ready();
  } catch (err) {
    await stop();
    throw new Error(`${(err as Error).message}\n${output}`);
  }
  /** The server goes away and comes back on the same port, state and sandboxes untouched. */
  const halted = {
    halt,
    async resume() {
      ({ proc: child, gone: exited } = launch());
      await ready();
    },
  };
  return { url, port, stateDir, secrets, env, output: () => output, stop, ...halted };
}

function rand(): string {
  return randomBytes(24).toString("base64url");
}

function withoutNames(source: NodeJS.ProcessEnv, names: string[]): NodeJS.ProcessEnv {
  const copy = { ...source };
  for (const name of names) delete copy[name];
  return copy;
}

/**
 * ClawRun sidecar entry: `node sidecar.js <config.json>` inside the sandbox, with the
 * heartbeat secret in CLAWRUN_HB_SECRET and the daemon's environment in CLAWRUN_DAEMON_ENV. Exit codes: 0 after a clean shutdown on
 * SIGTERM/SIGINT, 2 for a bad config or missing secret, 1 for anything else fatal.
 */
import { BYPASS_ENV, DAEMON_ENV_ENV, HB_SECRET_ENV } from "../protocol/constants";
import { type EarlyDaemon, spawnEarlyDaemon } from "./early-daemon";
import type { LoadedConfig } from "./load-config";
import type { RunningSidecar } from "./sidecar";
import { dismissWarmChild, takeWarmChild } from "./warm-daemon";

/** A daemon spawned ahead of the rest (see main): never left behind when start-up fails. */
let early: EarlyDaemon | null = null;

function fatal(message: string, code: number): never {
  early?.child.kill("SIGKILL");
  process.stderr.write(`clawrun-sidecar: ${message}\n`);
  process.exit(code);
}

async function main(): Promise<void> {
  // Wake speed: the daemon starts first; the rest of the sidecar is loaded (lazily, the
  // bundler defers these modules) while it boots. docs/sidecar.md, "Start-up order".
  // In the warm child the local provider left for us, when there is one that can run it.
  const warm = takeWarmChild();
  early = spawnEarlyDaemon(process.argv[2], process.env, warm);
  if (warm && early?.child !== warm.child) dismissWarmChild(warm);
  const { ConfigError, loadConfig } = await import("./load-config");
  let loaded: LoadedConfig;
  try {
    loaded = loadConfig(process.argv[2], process.env);
  } catch (err) {
    if (err instanceof ConfigError) fatal(err.message, 2);
    throw err;
  }
  // Nothing in this process needs it in the environment any more: children get explicit envs.
  delete process.env[HB_SECRET_ENV];
  delete process.env[BYPASS_ENV];
  delete process.env[DAEMON_ENV_ENV]; // kept in `loaded` only; the daemon gets it variable by variable

  let sidecar: RunningSidecar | null = null;
  let pending: string | null = null;
  const stop = (reason: string, code: number): void => {
    if (!sidecar) {
      pending ??= reason; // signal during startup: shut down as soon as there is something to stop
      return;
    }
    void sidecar.shutdown(reason).then(() => process.exit(code));
  };
  process.on("SIGTERM", () => stop("SIGTERM", 0));
  process.on("SIGINT", () => stop("SIGINT", 0));
  // A sidecar that dies on a bug would orphan the daemon: log, clean up, exit non-zero.
  process.on("uncaughtException", (err) => {
    sidecar?.log.error(`uncaught: ${err.stack ?? err.message}`);
    process.stderr.write(`clawrun-sidecar: ${err.stack ?? err.message}\n`);
    if (sidecar) stop("uncaught exception", 1);
    else fatal("uncaught exception during start-up", 1);
  });
  process.on("unhandledRejection", (reason) => {
    sidecar?.log.error(`unhandled rejection: ${String(reason)}`);
  });

  try {
    const { startSidecar } = await import("./sidecar");
    sidecar = await startSidecar(loaded, process.env, early);
  } catch (err) {
    fatal(`cannot start: ${(err as Error).message}`, 1);
  }
  if (pending) stop(pending, 0);
}

void main();

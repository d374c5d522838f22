import { readFileSync, statSync } from "node:fs";
import { BYPASS_ENV, DAEMON_ENV_ENV, HB_SECRET_ENV } from "../protocol/constants";
import { parseDaemonEnv } from "../protocol/daemon-env";
import {
  effectiveTimings,
  parseSidecarConfig,
  type SidecarConfig,
  type SidecarTimings,
} from "../protocol/sidecar-config";

/** A config problem the operator must fix: main prints it on one line and exits 2. */
export class ConfigError extends Error {
  override name = "ConfigError";
}

export interface LoadedConfig {
  config: SidecarConfig;
  timings: SidecarTimings;
  secret: string;
  /** Deployment Protection bypass sent with each heartbeat (BYPASS_ENV); null when unset. */
  bypass: string | null;
  /** The daemon's secret environment (DAEMON_ENV_ENV), already merged into config.daemon.env. */
  daemonEnv: Record<string, string>;
}

/** Reads and validates argv[2], and the heartbeat secret and the daemon's environment from ours. */
export function loadConfig(
  path: string | undefined,
  env: Record<string, string | undefined>,
): LoadedConfig {
  if (!path) throw new ConfigError("usage: node sidecar.js <config.json>");
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    throw new ConfigError(`cannot read config ${path}: ${(err as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new ConfigError(`config ${path} is not JSON: ${(err as Error).message}`);
  }
  const parsed = parseSidecarConfig(json);
  if (!parsed.ok) throw new ConfigError(`invalid config ${path}: ${parsed.error}`);
  const config = parsed.value;
  let rootIsDir = false;
  try {
    rootIsDir = statSync(config.root).isDirectory();
  } catch {
    rootIsDir = false;
  }
  if (!rootIsDir) throw new ConfigError(`config ${path}: root ${config.root} is not a directory`);
  const secret = env[HB_SECRET_ENV];
  if (!secret) {
    throw new ConfigError(`${HB_SECRET_ENV} is not set: heartbeats cannot be signed`);
  }
  const daemonEnv = parseDaemonEnv(env[DAEMON_ENV_ENV]);
  if (!daemonEnv.ok) throw new ConfigError(`${DAEMON_ENV_ENV}: ${daemonEnv.error}`);
  // In memory only: the file never held these (docs/sidecar.md, "Config").
  config.daemon.env = { ...config.daemon.env, ...daemonEnv.value };
  return {
    config,
    timings: effectiveTimings(config),
    secret,
    bypass: env[BYPASS_ENV] || null,
    daemonEnv: daemonEnv.value,
  };
}

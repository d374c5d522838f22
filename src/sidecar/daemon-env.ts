import { delimiter, join } from "node:path";
import { BYPASS_ENV, DAEMON_ENV_ENV, HB_SECRET_ENV } from "../protocol/constants";

export interface ChildEnvOptions {
  /** The sidecar's own environment (process.env). */
  base: Record<string, string | undefined>;
  /** Sandbox root = the agent's HOME; `<root>/.local/bin` is where tools install to. */
  root: string;
  /** Extra variables from the config (daemon.env). */
  extra?: Record<string, string>;
  /** The daemon's real listen port, exported as PORT. */
  port?: number;
}

const DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/** Where tools installed "to the user's local directory" land: ~/.local/bin, HOME being the sandbox root (docs/sidecar.md, "Tools"). */
export function localBinDir(root: string): string {
  return join(root, ".local", "bin");
}

/**
 * The environment the daemon and tool commands get, built explicitly so the heartbeat
 * secret never reaches them (an agent holding it could forge heartbeats), not even when
 * the config's daemon.env names it.
 */
export function buildChildEnv(opts: ChildEnvOptions): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(opts.base)) {
    if (value !== undefined) env[key] = value;
  }
  for (const [key, value] of Object.entries(opts.extra ?? {})) env[key] = value;
  delete env[HB_SECRET_ENV];
  delete env[BYPASS_ENV];
  // The daemon gets its own variables one by one (in `extra`), never the whole JSON bundle.
  delete env[DAEMON_ENV_ENV];

  const bin = localBinDir(opts.root);
  // With no PATH at all, `sh` and friends would not resolve once ~/.local/bin is prepended.
  const current = env.PATH && env.PATH !== "" ? env.PATH : DEFAULT_PATH;
  const rest = current.split(delimiter).filter((p) => p !== "" && p !== bin);
  env.PATH = [bin, ...rest].join(delimiter);
  if (opts.port !== undefined) env.PORT = String(opts.port);
  return env;
}

/**
 * `{PORT}` in a daemon argument becomes the real listen port and `{HOST}` the loopback host
 * it must bind (config contract; docs/sidecar.md, "The door").
 */
export function expandArgs(args: readonly string[], port: number, host: string): string[] {
  return args.map((a) => a.replaceAll("{PORT}", String(port)).replaceAll("{HOST}", host));
}

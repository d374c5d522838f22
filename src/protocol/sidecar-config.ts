import { SANDBOX_PORTS } from "./constants";
import {
  array,
  attempt,
  childPath,
  integer,
  object,
  optional,
  type Parsed,
  string,
  stringRecord,
  stringValue,
  url,
} from "./validate";

/**
 * The JSON file the server writes into the sandbox and passes to the sidecar as argv[2].
 * It holds no secret: the heartbeat secret travels only in CLAWRUN_HB_SECRET and the daemon's
 * environment only in CLAWRUN_DAEMON_ENV (both in the sidecar's process environment).
 */

/**
 * The sidecar's timings (docs/sidecar.md, "Timings", and docs/lifecycle.md for the heartbeat);
 * tests shorten them, shipped configs leave them at these defaults.
 */
export const SIDECAR_TIMINGS = {
  heartbeatIntervalMs: 60_000,
  heartbeatTimeoutMs: 10_000,
  probeIntervalMs: 500,
  /**
   * Better than the spec on purpose: probe every 10 ms until the daemon first listens (a
   * refused loopback connect costs microseconds), so a wake is noticed sooner; 5× slower once
   * it has not listened for notListeningWarnMs (a long first start).
   */
  startupProbeMs: 10,
  notListeningWarnMs: 3_000,
  restartDelayMs: 2_000,
  maxRestarts: 5,
  stableResetMs: 60_000,
  shutdownGraceMs: 5_000,
  toolAttempts: 3,
  toolRetryDelayMs: 5_000,
  /** Fallback activity scan period where recursive fs.watch is unavailable. */
  activityFallbackScanMs: 30_000,
  logMaxBytes: 5 * 1024 * 1024,
} as const;

export type SidecarTimings = { -readonly [K in keyof typeof SIDECAR_TIMINGS]: number };
const TIMING_KEYS = Object.keys(SIDECAR_TIMINGS) as (keyof SidecarTimings)[];

export interface SidecarTool {
  name: string;
  check: string;
  install: string[];
}

export interface SidecarDaemon {
  command: string;
  /** `{PORT}` in an argument is replaced with the daemon's listen port, `{HOST}` with its loopback host. */
  args: string[];
  env: Record<string, string>;
  /** Declared port; the real one may be mapped (see resolveListenPort). */
  port: number;
  cwd?: string;
}

export interface SidecarConfig {
  sandboxId: string;
  /** Sandbox root: the agent's home and workspace; logs go to `<root>/logs/`. */
  root: string;
  sandboxCreatedAt: number;
  /** Base URL of the ClawRun server; heartbeats go to `<parentUrl>/api/heartbeat`. */
  parentUrl: string;
  daemon: SidecarDaemon;
  /** The sidecar's one exposed port: the sandbox's door (docs/sidecar.md, "The door"). */
  healthPort: number;
  tools: SidecarTool[];
  /** Paths (relative to root) whose changes are housekeeping, not agent activity. */
  activityIgnore: string[];
  timings: Partial<SidecarTimings>;
}

/** What the server writes: fields with defaults may be left out. */
export type SidecarConfigInput = Omit<
  SidecarConfig,
  "daemon" | "healthPort" | "tools" | "activityIgnore" | "timings"
> & {
  daemon: Omit<SidecarDaemon, "args" | "env" | "port"> & Partial<SidecarDaemon>;
  healthPort?: number;
  tools?: SidecarTool[];
  activityIgnore?: string[];
  timings?: Partial<SidecarTimings>;
};

const CONFIG_KEYS = [
  "sandboxId",
  "root",
  "sandboxCreatedAt",
  "parentUrl",
  "daemon",
  "healthPort",
  "tools",
  "activityIgnore",
  "timings",
] as const;
const DAEMON_KEYS = ["command", "args", "env", "port", "cwd"] as const;
const PORT = { min: 1, max: 65535 };

function tool(value: unknown, path: string): SidecarTool {
  const o = object(value, path, ["name", "check", "install"]);
  return {
    name: string(o, "name", path, { min: 1 }),
    check: string(o, "check", path, { min: 1 }),
    install: array(o, "install", path, (v, p) => stringValue(v, p, { min: 1 }), { min: 1 }),
  };
}

function daemon(value: unknown, path: string): SidecarDaemon {
  const o = object(value, path, DAEMON_KEYS);
  const out: SidecarDaemon = {
    command: string(o, "command", path, { min: 1 }),
    args: optional(o, "args", [] as string[], (x, k) =>
      array(x, k, path, (v, p) => stringValue(v, p)),
    ),
    env: optional(o, "env", {}, (x, k) => stringRecord(x, k, path)),
    port: optional(o, "port", SANDBOX_PORTS.daemon, (x, k) => integer(x, k, path, PORT)),
  };
  const cwd = optional(o, "cwd", undefined, (x, k) => string(x, k, path));
  if (cwd !== undefined) out.cwd = cwd;
  return out;
}

function timings(value: unknown, path: string): Partial<SidecarTimings> {
  const o = object(value, path, TIMING_KEYS);
  const out: Partial<SidecarTimings> = {};
  for (const key of TIMING_KEYS) {
    if (o[key] !== undefined) out[key] = integer(o, key, path, { min: 1 });
  }
  return out;
}

/** Hand-checked (src/protocol/validate.ts): a strict object with defaults, every field named on error. */
export function parseSidecarConfig(json: unknown): Parsed<SidecarConfig> {
  return attempt(() => {
    const o = object(json, "", CONFIG_KEYS);
    return {
      sandboxId: string(o, "sandboxId", "", { min: 1 }),
      root: string(o, "root", "", { min: 1 }),
      sandboxCreatedAt: integer(o, "sandboxCreatedAt", "", { min: 0 }),
      parentUrl: url(o, "parentUrl", ""),
      daemon: daemon(o.daemon, childPath("", "daemon")),
      healthPort: optional(o, "healthPort", SANDBOX_PORTS.sidecar, (x, k) =>
        integer(x, k, "", PORT),
      ),
      tools: optional(o, "tools", [] as SidecarTool[], (x, k) => array(x, k, "", tool)),
      activityIgnore: optional(o, "activityIgnore", [] as string[], (x, k) =>
        array(x, k, "", (v, p) => stringValue(v, p)),
      ),
      timings: optional(o, "timings", {}, (x, k) => timings(x[k], childPath("", k))),
    };
  });
}

export function effectiveTimings(config: SidecarConfig): SidecarTimings {
  const overrides = Object.fromEntries(
    Object.entries(config.timings).filter(([, v]) => v !== undefined),
  );
  return { ...SIDECAR_TIMINGS, ...overrides };
}

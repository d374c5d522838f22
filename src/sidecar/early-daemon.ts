import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync, statSync } from "node:fs";
import { resolve } from "node:path";
import {
  DAEMON_ENV_ENV,
  HB_SECRET_ENV,
  resolveListenPort,
  SANDBOX_PORTS,
} from "../protocol/constants";
import { parseDaemonEnv } from "../protocol/daemon-env";
import { DAEMON_HOST } from "../protocol/door";
import { buildChildEnv, expandArgs } from "./daemon-env";
import { readRestoredGeneration } from "./restored-generation";
import { runInWarmChild, type WarmDaemonChild } from "./warm-daemon";

/**
 * Wake speed (docs/sidecar.md, "Start-up order"): the daemon is spawned before the rest of the
 * sidecar is loaded, so its own start-up overlaps the sidecar's instead of following it. This
 * module is loaded first and stays small (no schema library). It only acts on a config whose
 * daemon section is plainly well-formed; the sidecar then validates the whole config and
 * adopts the daemon only if it would have spawned exactly the same one, else kills it.
 */

export interface DaemonSpawnSpec {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  /** The real listen port the supervisor probes. */
  port: number;
}

export interface DaemonSection {
  command: string;
  args: readonly string[];
  env: Readonly<Record<string, string>>;
  port: number;
  cwd?: string;
}

/**
 * Pure: how the daemon is spawned, from the config's daemon section and the sidecar's
 * environment. HOST: the daemon binds loopback only; it is reached through the door
 * (docs/sidecar.md, "The door"). Never the heartbeat secret nor the bypass (buildChildEnv).
 */
export function daemonSpawnSpec(
  root: string,
  daemon: DaemonSection,
  env: Record<string, string | undefined>,
): DaemonSpawnSpec {
  const port = resolveListenPort(daemon.port, env);
  const childEnv = buildChildEnv({ base: env, root, extra: { ...daemon.env } });
  return {
    command: daemon.command,
    args: expandArgs(daemon.args, port, DAEMON_HOST),
    env: { ...childEnv, PORT: String(port), HOST: DAEMON_HOST },
    cwd: resolve(root, daemon.cwd ?? "."),
    port,
  };
}

export function sameSpec(a: DaemonSpawnSpec, b: DaemonSpawnSpec): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** A daemon spawned ahead of the sidecar, with what happened to it before it was adopted. */
export interface EarlyDaemon {
  spec: DaemonSpawnSpec;
  child: ChildProcess;
  /** The restored generation, read before the daemon was spawned (restore attestation). */
  generation: number | null;
  /** Warnings to log once the sidecar's log is open. */
  warnings: string[];
  /** Set when it exited or failed to spawn before anyone listened ("exit code 1", …). */
  ended: string | null;
}

const isString = (v: unknown): v is string => typeof v === "string" && v !== "";
const isStrings = (v: unknown): v is string[] =>
  Array.isArray(v) && v.every((s) => typeof s === "string");
const isStringRecord = (v: unknown): v is Record<string, string> =>
  typeof v === "object" &&
  v !== null &&
  !Array.isArray(v) &&
  Object.values(v).every((s) => typeof s === "string");

/** Pure: the root and daemon section of a raw config, or null unless plainly well-formed. */
export function earlyDaemonSection(raw: unknown): { root: string; daemon: DaemonSection } | null {
  if (typeof raw !== "object" || raw === null) return null;
  const { root, daemon } = raw as { root?: unknown; daemon?: unknown };
  if (!isString(root) || typeof daemon !== "object" || daemon === null) return null;
  const d = daemon as Record<string, unknown>;
  const args = d.args ?? [];
  const env = d.env ?? {};
  const port = d.port ?? SANDBOX_PORTS.daemon;
  if (!isString(d.command) || !isStrings(args) || !isStringRecord(env)) return null;
  if (!Number.isInteger(port) || (port as number) < 1 || (port as number) > 65535) return null;
  if (d.cwd !== undefined && typeof d.cwd !== "string") return null;
  return {
    root,
    daemon: {
      command: d.command,
      args,
      env,
      port: port as number,
      cwd: d.cwd as string | undefined,
    },
  };
}

/**
 * Spawns the daemon at once when that is safe: the secret is present (else the sidecar
 * exits on its config check), the root is a directory and the daemon section well-formed.
 * Returns null otherwise, and the supervisor spawns it in the usual order. A `node <script>`
 * daemon runs in the warm child when one was left and can run it (./warm-daemon.ts).
 */
export function spawnEarlyDaemon(
  configPath: string | undefined,
  env: Record<string, string | undefined>,
  warm: WarmDaemonChild | null = null,
): EarlyDaemon | null {
  if (!configPath || !env[HB_SECRET_ENV]) return null;
  let section: ReturnType<typeof earlyDaemonSection>;
  let spec: DaemonSpawnSpec;
  try {
    section = earlyDaemonSection(JSON.parse(readFileSync(configPath, "utf8")));
    const secretEnv = parseDaemonEnv(env[DAEMON_ENV_ENV]);
    if (!section || !secretEnv.ok || !statSync(section.root).isDirectory()) return null;
    // The same merge as loadConfig's, so the validated config adopts this daemon.
    const daemon = { ...section.daemon, env: { ...section.daemon.env, ...secretEnv.value } };
    spec = daemonSpawnSpec(section.root, daemon, env);
  } catch {
    return null; // the full config check reports it
  }
  const warnings: string[] = [];
  const generation = readRestoredGeneration(section.root, {
    info: () => {},
    warn: (m) => warnings.push(m),
    error: (m) => warnings.push(m),
  });
  let child: ChildProcess;
  try {
    child =
      runInWarmChild(warm, spec) ??
      spawn(spec.command, spec.args, {
        cwd: spec.cwd,
        env: spec.env as NodeJS.ProcessEnv,
        stdio: ["ignore", "pipe", "pipe"],
      });
  } catch {
    return null;
  }
  const early: EarlyDaemon = { spec, child, generation, warnings, ended: null };
  // Until the supervisor adopts it, remember how it ended (an unheard "error" would throw).
  child.once("error", (err) => {
    if (child.pid === undefined) early.ended ??= `spawn failed: ${err.message}`;
  });
  child.once("exit", (code, signal) => {
    early.ended ??= signal ? `signal ${signal}` : `exit code ${code}`;
  });
  return early;
}

import { randomBytes } from "node:crypto";
import { readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  attempt,
  type Fields,
  integer,
  nullable,
  object,
  oneOf,
  type Parsed,
  PayloadError,
  string,
  stringRecord,
} from "../../../protocol/validate";

/**
 * On-disk state of a local sandbox. Each file has one writer role so no lock is needed:
 * meta.json (server, under the lifecycle lock), state.json (whoever stops it: server or
 * watchdog — both only ever move it towards "stopped"), watchdog.json (the watchdog),
 * freeze.json (the snapshotting server), procs/*.json (one file per process group).
 *
 * Hand-checked (src/protocol/validate.ts), not zod: the watchdog bundles this module and boots
 * during every local wake; zod made its start-up ~2.5× that of a bare Node process.
 */

/** What a file's JSON must look like: its value, or what is wrong with it. */
export type Check<T> = (json: unknown) => Parsed<T>;

export interface ProcessIdentity {
  pid: number;
  /** Start time in clock ticks since boot (/proc/<pid>/stat field 22): guards against PID reuse. */
  startTime: number;
}

function identityFields(o: Fields): ProcessIdentity {
  return {
    pid: integer(o, "pid", "", { min: 1 }),
    startTime: integer(o, "startTime", "", { min: 0 }),
  };
}

export interface SandboxMeta {
  version: 1;
  id: string;
  createdAt: number;
  /** Total native TTL including extensions; the deadline is createdAt + timeoutMs. */
  timeoutMs: number;
  /** Declared sandbox port → host port on 127.0.0.1, reachable through domain(). */
  ports: Record<string, number>;
  /** Internal ports (the daemon's) → the host port its processes bind; never exposed. */
  internalPorts: Record<string, number>;
  labels: Record<string, string>;
  networkPolicy: "allow-all";
  sourceSnapshotId: string | null;
  /** SIGTERM → SIGKILL grace used by stop() and by the watchdog on expiry. */
  killGraceMs: number;
  /** How often the watchdog re-reads this directory while the deadline is far. */
  watchdogPollMs: number;
}

function versionOne(o: Fields): 1 {
  if (o.version !== 1) {
    throw new PayloadError(
      "version",
      `expected 1, got ${JSON.stringify(o.version) ?? "undefined"}`,
    );
  }
  return 1;
}

/** `{ "<port>": <host port> }`. */
function portMap(o: Fields, key: string): Record<string, number> {
  const map = object(o[key], key);
  for (const port of Object.keys(map)) {
    if (!/^\d+$/.test(port))
      throw new PayloadError(key, `expected port numbers as keys, got "${port}"`);
    integer(map, port, key, { min: 1, max: 65535 });
  }
  return { ...(map as Record<string, number>) };
}

export const sandboxMetaSchema: Check<SandboxMeta> = (json) =>
  attempt(() => {
    const o = object(json, "");
    return {
      version: versionOne(o),
      id: string(o, "id", ""),
      createdAt: integer(o, "createdAt", ""),
      timeoutMs: integer(o, "timeoutMs", "", { min: 1 }),
      ports: portMap(o, "ports"),
      internalPorts: o.internalPorts === undefined ? {} : portMap(o, "internalPorts"),
      labels: stringRecord(o, "labels", ""),
      networkPolicy: oneOf(o, "networkPolicy", "", ["allow-all"] as const),
      sourceSnapshotId: nullable(o, "sourceSnapshotId", (f, k) => string(f, k, "")),
      killGraceMs: integer(o, "killGraceMs", "", { min: 0 }),
      watchdogPollMs: integer(o, "watchdogPollMs", "", { min: 1 }),
    };
  });

export const PERSISTED_STATUSES = ["running", "stopping", "stopped", "failed"] as const;
export type PersistedStatus = (typeof PERSISTED_STATUSES)[number];

export interface SandboxState {
  status: PersistedStatus;
  /** Why it is not running: "stopped" (asked to), "expired" (TTL), or a failure message. */
  reason: string | null;
  updatedAt: number;
}

export const sandboxStateSchema: Check<SandboxState> = (json) =>
  attempt(() => {
    const o = object(json, "");
    return {
      status: oneOf(o, "status", "", PERSISTED_STATUSES),
      reason: nullable(o, "reason", (f, k) => string(f, k, "")),
      updatedAt: integer(o, "updatedAt", ""),
    };
  });

/** A process group started in the sandbox; its id is the leader's pid (spawned with setsid). */
export interface ProcessRecord extends ProcessIdentity {
  commandId: string;
  cmd: string;
  startedAt: number;
}

export const processRecordSchema: Check<ProcessRecord> = (json) =>
  attempt(() => {
    const o = object(json, "");
    return {
      ...identityFields(o),
      commandId: string(o, "commandId", ""),
      cmd: string(o, "cmd", ""),
      startedAt: integer(o, "startedAt", ""),
    };
  });

export const processIdentitySchema: Check<ProcessIdentity> = (json) =>
  attempt(() => identityFields(object(json, "")));

export const SNAPSHOT_FORMATS = ["tar.zst", "tar.gz"] as const;
export type SnapshotFormat = (typeof SNAPSHOT_FORMATS)[number];

export interface SnapshotMeta {
  version: 1;
  id: string;
  createdAt: number;
  sourceSandboxId: string;
  sizeBytes: number;
  format: SnapshotFormat;
}

export const snapshotMetaSchema: Check<SnapshotMeta> = (json) =>
  attempt(() => {
    const o = object(json, "");
    return {
      version: versionOne(o),
      id: string(o, "id", ""),
      createdAt: integer(o, "createdAt", ""),
      sourceSandboxId: string(o, "sourceSandboxId", ""),
      sizeBytes: integer(o, "sizeBytes", "", { min: 0 }),
      format: oneOf(o, "format", "", SNAPSHOT_FORMATS),
    };
  });

/** Where everything of one sandbox lives. */
export function sandboxLayout(dir: string) {
  return {
    dir,
    root: join(dir, "root"),
    meta: join(dir, "meta.json"),
    state: join(dir, "state.json"),
    watchdog: join(dir, "watchdog.json"),
    freeze: join(dir, "freeze.json"),
    procs: join(dir, "procs"),
    logs: join(dir, "logs"),
    /** The layer directory mounted into the root (outside it: not in a snapshot). */
    mountedLayer: join(dir, "mounted-layer"),
  };
}
export type SandboxLayout = ReturnType<typeof sandboxLayout>;

/**
 * Synchronous on purpose: these files are tiny, `status` is a synchronous getter, and a
 * read-modify-write done synchronously cannot interleave with another in the same process.
 */
export function readJson<T>(file: string, check: Check<T>): T | null {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw err;
  }
  const parsed = check(JSON.parse(text));
  if (!parsed.ok) throw new Error(`${file}: ${parsed.error}`);
  return parsed.value;
}

/** Temp name + rename: a reader (or a crash) sees the old file or the new one, never half. */
export function writeJsonAtomic(file: string, value: unknown): void {
  const tmp = `${file}.${randomBytes(4).toString("hex")}.tmp`;
  try {
    writeFileSync(tmp, `${JSON.stringify(value, null, 2)}\n`, { mode: 0o600 });
    renameSync(tmp, file);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}

export function writeState(layout: SandboxLayout, status: PersistedStatus, reason: string | null) {
  const state: SandboxState = { status, reason, updatedAt: Date.now() };
  writeJsonAtomic(layout.state, state);
}

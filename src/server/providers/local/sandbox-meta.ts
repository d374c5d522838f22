import { randomBytes } from "node:crypto";
import { readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";

/**
 * On-disk state of a local sandbox. Each file has one writer role so no lock is needed:
 * meta.json (server, under the lifecycle lock), state.json (whoever stops it: server or
 * watchdog — both only ever move it towards "stopped"), watchdog.json (the watchdog),
 * freeze.json (the snapshotting server), procs/*.json (one file per process group).
 */

const processIdentity = {
  pid: z.number().int().positive(),
  /** Start time in clock ticks since boot (/proc/<pid>/stat field 22): guards against PID reuse. */
  startTime: z.number().int().nonnegative(),
};

export const sandboxMetaSchema = z.object({
  version: z.literal(1),
  id: z.string(),
  createdAt: z.number().int(),
  /** Total native TTL including extensions; the deadline is createdAt + timeoutMs. */
  timeoutMs: z.number().int().positive(),
  /** Declared sandbox port → host port on 127.0.0.1, reachable through domain(). */
  ports: z.record(z.string().regex(/^\d+$/), z.number().int().min(1).max(65535)),
  /** Internal ports (the daemon's) → the host port its processes bind; never exposed. */
  internalPorts: z
    .record(z.string().regex(/^\d+$/), z.number().int().min(1).max(65535))
    .default({}),
  labels: z.record(z.string(), z.string()),
  networkPolicy: z.literal("allow-all"),
  sourceSnapshotId: z.string().nullable(),
  /** SIGTERM → SIGKILL grace used by stop() and by the watchdog on expiry. */
  killGraceMs: z.number().int().nonnegative(),
  /** How often the watchdog re-reads this directory while the deadline is far. */
  watchdogPollMs: z.number().int().positive(),
});
export type SandboxMeta = z.infer<typeof sandboxMetaSchema>;

export const persistedStatusSchema = z.enum(["running", "stopping", "stopped", "failed"]);
export type PersistedStatus = z.infer<typeof persistedStatusSchema>;

export const sandboxStateSchema = z.object({
  status: persistedStatusSchema,
  /** Why it is not running: "stopped" (asked to), "expired" (TTL), or a failure message. */
  reason: z.string().nullable(),
  updatedAt: z.number().int(),
});
export type SandboxState = z.infer<typeof sandboxStateSchema>;

/** A process group started in the sandbox; its id is the leader's pid (spawned with setsid). */
export const processRecordSchema = z.object({
  ...processIdentity,
  commandId: z.string(),
  cmd: z.string(),
  startedAt: z.number().int(),
});
export type ProcessRecord = z.infer<typeof processRecordSchema>;

export const processIdentitySchema = z.object(processIdentity);
export type ProcessIdentity = z.infer<typeof processIdentitySchema>;

export const snapshotFormatSchema = z.enum(["tar.zst", "tar.gz"]);
export type SnapshotFormat = z.infer<typeof snapshotFormatSchema>;

export const snapshotMetaSchema = z.object({
  version: z.literal(1),
  id: z.string(),
  createdAt: z.number().int(),
  sourceSandboxId: z.string(),
  sizeBytes: z.number().int().nonnegative(),
  format: snapshotFormatSchema,
});
export type SnapshotMeta = z.infer<typeof snapshotMetaSchema>;

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
export function readJson<T>(file: string, schema: z.ZodType<T>): T | null {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw err;
  }
  const parsed = schema.safeParse(JSON.parse(text));
  if (!parsed.success) throw new Error(`${file}: ${parsed.error.message}`);
  return parsed.data;
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

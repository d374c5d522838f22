import { z } from "zod";
import { epochMs } from "./epoch";

/**
 * The instance's lifecycle state: the one record every lifecycle decision reads and every
 * transition writes (compare-and-set on `Versioned.version`).
 */
export const INSTANCE_STATUSES = [
  "uninitialized",
  "creating",
  "starting",
  "running",
  "snapshotting",
  "stopping",
  "sleeping",
  "failed",
] as const;
export const instanceStatusSchema = z.enum(INSTANCE_STATUSES);
export type InstanceStatus = z.infer<typeof instanceStatusSchema>;

export const extendReasonSchema = z.enum(["grace", "delivery", "file-activity", "cron"]);
export type ExtendReason = z.infer<typeof extendReasonSchema>;

export const instanceStateSchema = z.object({
  status: instanceStatusSchema,
  /** When this status was entered. */
  since: epochMs,
  /** Why (human words, shown on the dashboard). */
  reason: z.string(),
  /** The instance's current sandbox (null when none is meant to exist). */
  sandboxId: z.string().nullable(),
  sandboxCreatedAt: epochMs.nullable(),
  /**
   * A random id per bring-up of the current sandbox (every start, wake or resume; null at
   * rest). Its model credential is bound to it, so the credential changes at every wake even
   * where a resumed sandbox keeps its id (docs/model-gateway.md, "Credentials").
   */
  bootId: z.string().nullable().default(null),
  /** The current sandbox's native TTL deadline, as last set by create/extend. */
  ttlDeadline: epochMs.nullable(),
  /** Snapshot the current/last sandbox was restored from, or the last one taken. */
  snapshotId: z.string().nullable(),
  /**
   * Resumable providers: the stopped sandbox that holds the agent's files while it sleeps
   * (a persistent named sandbox); the next wake resumes it.
   */
  savedSandboxId: z.string().nullable().default(null),
  /** Last error in plain words (failed starts, snapshot failures). */
  error: z.string().nullable(),
  /** Wake hooks are registered while sleeping so messages can wake the agent. */
  hooksRegistered: z.boolean(),
  lastExtend: z.object({ at: epochMs, reason: extendReasonSchema }).nullable(),
  /** When the next cron job is due: the heartbeat's cron extend reason reads it from here. */
  cronDueAt: epochMs.nullable().default(null),
  /**
   * Set when a sandbox died before ClawRun captured its latest files and no snapshot holds an
   * earlier copy: nothing may start an empty agent in its place except an operator's
   * "start fresh" (docs/lifecycle.md, "When state is lost").
   */
  lost: z
    .object({
      at: epochMs,
      /** The sandbox that died unsaved (null when a snapshot went missing instead). */
      sandboxId: z.string().nullable(),
      /**
       * The agent's snapshot that no longer exists (deleted on disk, expired at the provider):
       * the state reads `failed — snapshot missing` and waits for "start fresh" like lost state.
       */
      snapshotId: z.string().nullable().default(null),
    })
    .nullable()
    .default(null),
  /**
   * Restore attestation (docs/lifecycle.md): the generation of the newest save (0: never
   * saved), each snapshot's generation, and the generation the current sandbox must report
   * (null: unknown, e.g. a snapshot taken before attestation existed, so nothing to check).
   */
  generation: z.number().int().nonnegative().default(0),
  snapshotGenerations: z.record(z.string(), z.number().int().positive()).default({}),
  expectedGeneration: z.number().int().nonnegative().nullable().default(null),
  /** Consecutive failed starts (reset by a successful one): the retry backoff grows with it. */
  failedStarts: z.number().int().nonnegative().default(0),
  /**
   * A suspension the agent granted for a snapshot (OpenClaw's `gateway.suspend.prepare`
   * answered ready) and not yet ended: kept so that if ClawRun dies before the snapshot, a
   * later tick, wake or delivery resumes the agent instead of leaving it refusing work until
   * the lease runs out (issue 23, item 3). Null at rest and once resumed.
   */
  suspension: z
    .object({ id: z.string().min(1), at: epochMs })
    .nullable()
    .default(null),
});
export type InstanceState = z.infer<typeof instanceStateSchema>;

export interface Versioned<T> {
  value: T;
  /** Increases by one on every successful write; 0 means "never written". */
  version: number;
}

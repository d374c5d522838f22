import { z } from "zod";
import { daemonStatusSchema } from "../../protocol/heartbeat";

/**
 * Shapes of everything the store persists. Every read is parsed with these, so hand-edited
 * or older data fails with a StoreDataError naming the key instead of an `undefined` crash.
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

const epochMs = z.number().int().nonnegative();

export const extendReasonSchema = z.enum(["grace", "file-activity", "cron"]);
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
  /** The current sandbox's native TTL deadline, as last set by create/extend. */
  ttlDeadline: epochMs.nullable(),
  /** Snapshot the current/last sandbox was restored from, or the last one taken. */
  snapshotId: z.string().nullable(),
  /** Last error in plain words (failed starts, snapshot failures). */
  error: z.string().nullable(),
  /** Wake hooks are registered while sleeping so messages can wake the agent. */
  hooksRegistered: z.boolean(),
  lastExtend: z.object({ at: epochMs, reason: extendReasonSchema }).nullable(),
  /** When the next cron job is due: the heartbeat's cron extend reason reads it from here. */
  cronDueAt: epochMs.nullable().default(null),
});
export type InstanceState = z.infer<typeof instanceStateSchema>;

export interface Versioned<T> {
  value: T;
  /** Increases by one on every successful write; 0 means "never written". */
  version: number;
}

export const storedHeartbeatSchema = z.object({
  sandboxId: z.string(),
  /** Signature timestamp; a heartbeat not newer than the stored one is a replay. */
  sentAt: epochMs,
  receivedAt: epochMs,
  lastChangedAt: epochMs,
  sandboxCreatedAt: epochMs,
  root: z.string(),
  daemonStatus: daemonStatusSchema,
  daemonRestarts: z.number().int().nonnegative(),
});
export type StoredHeartbeat = z.infer<typeof storedHeartbeatSchema>;

export const lifecycleEventSchema = z.object({
  id: z.string(),
  at: epochMs,
  /** Dotted type, e.g. "status.running", "snapshot.failed", "inbox.dead-letter". */
  type: z.string(),
  level: z.enum(["info", "warn", "error"]),
  sandboxId: z.string().nullable(),
  message: z.string(),
  details: z.record(z.string(), z.unknown()),
});
export type LifecycleEvent = z.infer<typeof lifecycleEventSchema>;
export type NewLifecycleEvent = Omit<LifecycleEvent, "id">;

export const awakeIntervalSchema = z.object({
  sandboxId: z.string(),
  start: epochMs,
  end: epochMs,
});
export type AwakeInterval = z.infer<typeof awakeIntervalSchema>;

export const inboxMessageSchema = z.object({
  /** Dedupe key (the platform's message id). */
  id: z.string(),
  channel: z.string(),
  conversation: z.string(),
  text: z.string(),
  receivedAt: epochMs,
  /** Arrival order, assigned by the store. */
  seq: z.number().int().positive(),
  attempts: z.number().int().nonnegative(),
  lastError: z.string().nullable(),
  /** Not deliverable before this time (retry backoff). */
  notBefore: epochMs,
  /** Claimed by a deliverer until this time (visibility timeout); 0 when unclaimed. */
  claimedUntil: epochMs,
  /** Channel data needed to answer (e.g. reply URL, platform chat id). */
  meta: z.record(z.string(), z.unknown()),
});
export type InboxMessage = z.infer<typeof inboxMessageSchema>;
export type NewInboxMessage = Pick<
  InboxMessage,
  "id" | "channel" | "conversation" | "text" | "receivedAt" | "meta"
>;

export const scheduleSchema = z.object({
  /** When the next cron job is due (the tick wakes the agent cronWakeLeadTime before it). */
  nextDueAt: epochMs.nullable(),
  nextJob: z.string().nullable(),
  /** When each job last fired (or was first seen), so a job never fires twice for one due time. */
  lastRun: z.record(z.string(), epochMs),
  /** Jobs the agent reported while awake, remembered so they can wake it while asleep. */
  agentJobs: z
    .array(z.object({ name: z.string(), schedule: z.string(), message: z.string() }))
    .default([]),
});
export type Schedule = z.infer<typeof scheduleSchema>;

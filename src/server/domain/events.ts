import { z } from "zod";
import { epochMs } from "./epoch";

/** The capped lifecycle event log and the awake intervals used for time and cost accounting. */
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

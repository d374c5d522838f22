import { z } from "zod";

export const DAEMON_STATUSES = ["starting", "running", "stopped", "failed"] as const;
export const daemonStatusSchema = z.enum(DAEMON_STATUSES);
export type DaemonStatus = z.infer<typeof daemonStatusSchema>;

const epochMs = z.number().int().nonnegative();

/** Body the sidecar POSTs to `<parent>/api/heartbeat` (docs/sidecar.md, exactly these fields). */
export const heartbeatBodySchema = z.strictObject({
  sandboxId: z.string().min(1).max(200),
  lastChangedAt: epochMs,
  sandboxCreatedAt: epochMs,
  root: z.string().min(1).max(4096),
  daemonStatus: daemonStatusSchema,
  daemonRestarts: z.number().int().nonnegative(),
  /** The save this sandbox was restored from (src/protocol/generation.ts): 0 none, null unreadable. */
  generation: z.number().int().nonnegative().nullable().optional(),
});
export type HeartbeatBody = z.infer<typeof heartbeatBodySchema>;

/** What the server answers; `stop` tells a sidecar of a sandbox that is no longer wanted to expect shutdown. */
export const heartbeatResponseSchema = z.object({
  action: z.enum(["extend", "none", "stop"]),
  reason: z.string(),
});
export type HeartbeatResponse = z.infer<typeof heartbeatResponseSchema>;

export const HEARTBEAT_MAX_BYTES = 64 * 1024;

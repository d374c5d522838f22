import { z } from "zod";
import { DAEMON_STATUSES } from "../../protocol/heartbeat";
import { epochMs } from "./epoch";

/** The last heartbeat stored per sandbox (replay check, restart counting, dashboard). */
export const storedHeartbeatSchema = z.object({
  sandboxId: z.string(),
  /** Signature timestamp; a heartbeat not newer than the stored one is a replay. */
  sentAt: epochMs,
  receivedAt: epochMs,
  lastChangedAt: epochMs,
  sandboxCreatedAt: epochMs,
  root: z.string(),
  daemonStatus: z.enum(DAEMON_STATUSES),
  daemonRestarts: z.number().int().nonnegative(),
  /** The save the sandbox was restored from, as its sidecar read it (restore attestation). */
  generation: z.number().int().nonnegative().nullable().optional(),
  /** The oldest delivery still open when it was sent (the agent is answering a message). */
  openDeliverySince: epochMs.optional(),
});
export type StoredHeartbeat = z.infer<typeof storedHeartbeatSchema>;

import { z } from "zod";
import { epochMs } from "./epoch";

/** A channel message in the durable inbox, from arrival until delivered or dead-lettered. */
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

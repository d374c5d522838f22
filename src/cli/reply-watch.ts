import { z } from "zod";
import type { EventView } from "./api-schemas";

/**
 * What the event log says about one queued message (for `send --wait`), pure. The inbox
 * names the message in `details.messageId` on every event about it (docs/api.md, events).
 */
export type MessageFate =
  | { kind: "replied"; reply: string; detail: string }
  | { kind: "failed"; detail: string }
  | { kind: "delivered" };

const detailsSchema = z.looseObject({ messageId: z.string(), reply: z.string().optional() });

/** The furthest step the message reached in these events (oldest first), or null. */
export function messageFate(events: EventView[], messageId: string): MessageFate | null {
  let fate: MessageFate | null = null;
  for (const e of events) {
    const details = detailsSchema.safeParse(e.details);
    if (!details.success || details.data.messageId !== messageId) continue;
    if (e.type === "message.replied")
      return { kind: "replied", reply: details.data.reply ?? "", detail: e.message };
    if (e.type === "inbox.dead-letter" || e.type === "reply.dead-letter")
      return { kind: "failed", detail: e.message };
    if (e.type === "message.delivered") fate = { kind: "delivered" };
  }
  return fate;
}

import type { InboxMessage } from "../domain/inbox-message";
import type { DrainDeps } from "./drain";

/** One event about a queued message (delivery or reply), logged and kept in the event log. */
export async function messageEvent(
  d: Pick<DrainDeps, "store" | "logger" | "clock">,
  sandboxId: string | null,
  msg: Pick<InboxMessage, "id" | "channel" | "conversation">,
  type: string,
  level: "info" | "warn" | "error",
  message: string,
  details: Record<string, unknown> = {},
): Promise<void> {
  d.logger[level]({ type, messageId: msg.id, channel: msg.channel }, message);
  await d.store.events.append({
    at: d.clock(),
    type,
    level,
    sandboxId,
    message,
    details: {
      messageId: msg.id,
      channel: msg.channel,
      conversation: msg.conversation,
      ...details,
    },
  });
}

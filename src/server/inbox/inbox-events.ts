import type { Logger } from "pino";
import type { InboxMessage } from "../domain/inbox-message";
import type { Store } from "../store/types";

/**
 * One event about a queued message (delivery or reply), logged and kept in the event log. The
 * event is a record, not the work: when the store refuses it the log line stays and the
 * caller goes on (a delivered message must not be reported as failed for want of an event).
 */
export async function messageEvent(
  d: { store: Pick<Store, "events">; logger: Logger; clock: () => number },
  sandboxId: string | null,
  msg: Pick<InboxMessage, "id" | "channel" | "conversation">,
  type: string,
  level: "info" | "warn" | "error",
  message: string,
  details: Record<string, unknown> = {},
): Promise<void> {
  d.logger[level]({ type, messageId: msg.id, channel: msg.channel }, message);
  await d.store.events
    .append({
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
    })
    .catch((err: unknown) =>
      d.logger.warn({ type, messageId: msg.id, err: String(err) }, "event not recorded"),
    );
}

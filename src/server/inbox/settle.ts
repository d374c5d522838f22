import type { Unsettled } from "./drain";
import { queueReply } from "./drain";
import type { DrainDeps } from "./inbox-deps";
import { messageEvent } from "./inbox-events";

/** First wait between attempts; doubles up to the cap. */
const FIRST_WAIT_MS = 250;
const MAX_WAIT_MS = 5_000;

/**
 * Finishes deliveries the agent answered but the store did not record (docs/api.md: once a
 * message is stored, a store fault after it is answered 202, never 503): the reply goes into
 * the outbox — also for a webhook that was waiting for it inline, since its sender got a 202 —
 * and then the message is acknowledged, retrying until the store answers or `untilMs`.
 * Giving up loses nothing: the message is still pending and is redelivered when its claim
 * ends (the agent is told the id; the reply's id dedupes a second reply). Returns how many
 * were finished.
 */
export async function settleDelivered(
  d: Pick<DrainDeps, "store" | "clock" | "logger">,
  unsettled: readonly Unsettled[],
  untilMs: number,
): Promise<number> {
  let settled = 0;
  for (const u of unsettled) {
    let wait = FIRST_WAIT_MS;
    for (;;) {
      try {
        if (u.result.reply.trim() !== "") await queueReply(d, u.msg, u.result);
        await d.store.inbox.ack(u.msg.id);
        settled++;
        await messageEvent(
          d,
          null,
          u.msg,
          "message.delivered",
          "info",
          `delivered ${u.msg.id} (recorded late: ${u.error})`,
        );
        break;
      } catch (err) {
        if (d.clock() + wait > untilMs) {
          d.logger.warn(
            { messageId: u.msg.id, err: String(err) },
            "could not record a delivered message; it is redelivered when its claim ends",
          );
          return settled;
        }
        await new Promise((r) => setTimeout(r, wait));
        wait = Math.min(wait * 2, MAX_WAIT_MS);
      }
    }
  }
  return settled;
}

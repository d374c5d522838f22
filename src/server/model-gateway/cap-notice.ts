import { noticeId } from "../domain/outbox-ids";
import type { CounterStore, MessageQueue, OpenDelivery } from "../store/types";
import { conversationKey } from "./attribution";
import type { CapPeriod } from "./caps";
import { utcDay, utcMonth } from "./periods";

/** A refusal for the cap, told to the conversation the refused call was for. */
export interface CapNotice {
  period: CapPeriod;
  /** The sentence the agent got too ("This agent reached its daily budget of $2.00; ..."). */
  text: string;
  now: number;
  resetsAt: number;
}

/** Pure: the period a notice is once per ("daily-2026-12-02", "monthly-2026-12"). */
export function noticePeriodKey(period: CapPeriod, now: number): string {
  return `${period}-${period === "daily" ? utcDay(now) : utcMonth(now)}`;
}

/**
 * Puts ONE message from ClawRun into the conversation's outbox per period, however many calls
 * are refused and however many servers refuse them: the first to claim the notice (an atomic
 * counter increment in the store) sends it. The reply goes out after the delivery under way,
 * like the agent's own answers. Returns whether this call queued it.
 */
export async function tellConversationOnce(
  store: { counters: Pick<CounterStore, "hit" | "clear">; outbox: Pick<MessageQueue, "enqueue"> },
  delivery: OpenDelivery,
  notice: CapNotice,
): Promise<boolean> {
  const periodKey = noticePeriodKey(notice.period, notice.now);
  const claim = `budget-notice:${periodKey}:${conversationKey(delivery)}`;
  // The claim outlives its period, so it cannot run out while the period lasts.
  const windowMs = notice.resetsAt - notice.now + 24 * 3_600_000;
  const { count } = await store.counters.hit(claim, windowMs);
  if (count !== 1) return false;
  try {
    await store.outbox.enqueue({
      id: noticeId(`budget-${periodKey}`, delivery.id),
      channel: delivery.channel,
      conversation: delivery.conversation,
      text: notice.text,
      receivedAt: notice.now,
      meta: delivery.meta,
    });
  } catch (err) {
    // Not queued: give the claim back so the next refused call tries again.
    await store.counters.clear(claim).catch(() => {});
    throw err;
  }
  return true;
}

import type { MessageQueue } from "../store/types";

/**
 * Sleeps until the earliest pending entry of `queue` becomes due (its retry time or the end of
 * someone else's claim), if that is before `until`; false when nothing becomes due in time.
 * The drain waits on the inbox with it, the reply sender on the outbox.
 */
export async function waitForDue(
  queue: Pick<MessageQueue, "listPending">,
  clock: () => number,
  until: number,
): Promise<boolean> {
  const now = clock();
  if (now >= until) return false;
  const pending = await queue.listPending(100);
  const times = pending.map((m) => Math.max(m.notBefore, m.claimedUntil)).filter((t) => t <= until);
  if (times.length === 0) return false;
  await new Promise((res) => setTimeout(res, Math.max(20, Math.min(...times) - now)));
  return true;
}

import type { MessageQueue } from "../store/types";

/**
 * How often a wait on someone else's claim looks again. A claim runs until the claimant's
 * worst case (its delivery timeout and a margin, tens of seconds), but it usually ends in
 * moments: sleeping to its end held the run — and every message that arrived meanwhile,
 * coalesced behind it — for half a minute after the other deliverer had finished.
 */
export const CLAIM_RECHECK_MS = 1_000;

/**
 * Sleeps until the earliest pending entry of `queue` becomes due (its retry time, or the end
 * of someone else's claim, looked at again within CLAIM_RECHECK_MS), if that is before
 * `until`; false when nothing becomes due in time.
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
  const times = pending
    .filter((m) => Math.max(m.notBefore, m.claimedUntil) <= until)
    .map((m) =>
      // A retry time is exact; a claim may end any moment before its worst case.
      m.claimedUntil > m.notBefore ? Math.min(m.claimedUntil, now + CLAIM_RECHECK_MS) : m.notBefore,
    );
  if (times.length === 0) return false;
  await new Promise((res) => setTimeout(res, Math.max(20, Math.min(...times) - now)));
  return true;
}

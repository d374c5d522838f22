import {
  type DrainDeps,
  type DrainOptions,
  type DrainResult,
  deliveryVisibilityMs,
  drainInbox,
  type Unsettled,
} from "./drain";
import { type ReplyReport, sendReplies } from "./replies";
import { settleDelivered } from "./settle";

/** How long a delivery the store refused to record is retried before its claim is left to end. */
const SETTLE_WINDOW_MS = 60_000;

/**
 * The durable inbox as the lifecycle sees it: deliver what is due, and let deliveries under
 * way finish before the agent's state is captured. Only this module knows the claim margins.
 */
export class Inbox {
  constructor(private readonly d: DrainDeps) {}

  /** Delivers what is due, then sends the replies that queued (through the same retry window). */
  async drain(opts: DrainOptions = {}): Promise<DrainResult> {
    const result = await drainInbox(this.d, opts);
    if (result.unsettled.length > 0) {
      // The store failed after a delivery. A webhook waiting inline answers 202 at once and
      // finishes them after its response; anyone else finishes them now.
      if (opts.inlineId === undefined) await this.finishDelivered(result.unsettled);
      return result;
    }
    try {
      await this.sendReplies(opts.waitForRetriesMs);
    } catch (err) {
      // The inline reply is in hand and its message acknowledged: the outbox keeps the others.
      if (opts.inlineId === undefined || !result.inline?.ok) throw err;
      this.d.logger.warn(
        { err: String(err) },
        "queued replies not sent; the next drain sends them",
      );
    }
    return result;
  }

  /**
   * Records deliveries the store refused (their replies into the outbox, then the acks) once
   * it answers again, then sends the replies.
   */
  async finishDelivered(unsettled: readonly Unsettled[]): Promise<void> {
    await settleDelivered(this.d, unsettled, this.d.clock() + SETTLE_WINDOW_MS);
    await this.sendReplies();
  }

  /** Sends queued replies; the agent need not be running for that. */
  sendReplies(waitForRetriesMs = 0): Promise<ReplyReport> {
    return sendReplies(this.d, { waitUntil: this.d.clock() + waitForRetriesMs });
  }

  /**
   * Waits until no delivery holds a claim (deliveries claim a message before they check that
   * the agent is running), at most one delivery's visibility window.
   */
  async settle(): Promise<void> {
    const deadline = this.d.clock() + deliveryVisibilityMs(this.d.agent, this.d.timings);
    while (this.d.clock() < deadline) {
      const now = this.d.clock();
      const pending = await this.d.store.inbox.listPending(1000);
      if (!pending.some((m) => m.claimedUntil > now)) return;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

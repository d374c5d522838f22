import {
  type DrainDeps,
  type DrainOptions,
  type DrainResult,
  deliveryVisibilityMs,
  drainInbox,
} from "./drain";
import { type ReplyReport, sendReplies } from "./replies";

/**
 * The durable inbox as the lifecycle sees it: deliver what is due, and let deliveries under
 * way finish before the agent's state is captured. Only this module knows the claim margins.
 */
export class Inbox {
  constructor(private readonly d: DrainDeps) {}

  /** Delivers what is due, then sends the replies that queued (through the same retry window). */
  async drain(opts: DrainOptions = {}): Promise<DrainResult> {
    const result = await drainInbox(this.d, opts);
    await this.sendReplies(opts.waitForRetriesMs);
    return result;
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
    const deadline = this.d.clock() + deliveryVisibilityMs(this.d.agent);
    while (this.d.clock() < deadline) {
      const now = this.d.clock();
      const pending = await this.d.store.inbox.listPending(1000);
      if (!pending.some((m) => m.claimedUntil > now)) return;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

import type { Logger } from "pino";
import type { ReplyTarget, WaitingIndicator } from "../types";

const DEFAULT_MAX_MS = 10 * 60_000;

export interface WaitingIndicatorsOptions {
  /** Shows the platform's indicator once (it expires on its own after a while). */
  pulse(target: ReplyTarget): Promise<void>;
  /** Repeat before the platform's indicator expires. */
  everyMs: number;
  /** A safety stop, should nobody call stop() (the wake budget is far shorter). Default 10 min. */
  maxMs?: number;
  logger: Logger;
  clock: () => number;
}

interface Conversation {
  /** Messages still waiting for their reply, oldest first. */
  waiting: Map<string, ReplyTarget>;
  timer: ReturnType<typeof setInterval>;
  startedAt: number;
  /** Indicator calls still on their way to the platform. */
  inFlight: Set<Promise<void>>;
}

/**
 * One repeating indicator per conversation while any of its messages waits for a reply: a
 * burst of messages in one chat shows one "typing…", not one per message. A message stops
 * waiting when its reply is sent (`replied`) or when the wake that started it ends (stop()).
 */
export class WaitingIndicators {
  private readonly conversations = new Map<string, Conversation>();

  constructor(private readonly o: WaitingIndicatorsOptions) {}

  start(target: ReplyTarget): WaitingIndicator {
    const existing = this.conversations.get(target.conversation);
    if (existing) existing.waiting.set(target.messageId, target);
    else {
      const timer = setInterval(() => this.tick(target.conversation), this.o.everyMs);
      timer.unref?.();
      this.conversations.set(target.conversation, {
        waiting: new Map([[target.messageId, target]]),
        timer,
        startedAt: this.o.clock(),
        inFlight: new Set(),
      });
      this.fire(target);
    }
    return {
      stop: () => this.replied(target),
    };
  }

  /**
   * The reply to this message is going out: it no longer needs the indicator. When that ends
   * the conversation's indicator, this resolves once the calls already sent have landed, so a
   * reply sent afterwards is never followed by a stray "typing…".
   */
  async replied(target: Pick<ReplyTarget, "conversation" | "messageId">): Promise<void> {
    const c = this.conversations.get(target.conversation);
    if (!c) return;
    c.waiting.delete(target.messageId);
    if (c.waiting.size === 0) await this.end(target.conversation);
  }

  /** Conversations with an indicator showing (for tests and status). */
  active(): string[] {
    return [...this.conversations.keys()];
  }

  private tick(conversation: string): void {
    const c = this.conversations.get(conversation);
    if (!c) return;
    if (this.o.clock() - c.startedAt > (this.o.maxMs ?? DEFAULT_MAX_MS)) {
      this.end(conversation);
      return;
    }
    // The newest waiting message: platforms that tie the indicator to a message want a recent one.
    const newest = [...c.waiting.values()].at(-1);
    if (newest) this.fire(newest);
  }

  private async end(conversation: string): Promise<void> {
    const c = this.conversations.get(conversation);
    if (!c) return;
    clearInterval(c.timer);
    this.conversations.delete(conversation);
    await Promise.all(c.inFlight);
  }

  private fire(target: ReplyTarget): void {
    const c = this.conversations.get(target.conversation);
    const call = this.o.pulse(target).catch((err: unknown) => {
      // Cosmetic: a missed indicator must never hold up or fail the delivery.
      this.o.logger.debug({ err: (err as Error).message }, "waiting indicator not shown");
    });
    if (!c) return;
    c.inFlight.add(call);
    void call.finally(() => c.inFlight.delete(call));
  }
}

import type { Logger } from "pino";
import type { ChannelKv, ReplyTarget } from "../types";
import { WaitingIndicators } from "./waiting-indicators";

/** What a chat channel that answers in text and shows "typing…" needs besides its platform. */
export interface ChatChannelOptions {
  kv: ChannelKv;
  clock: () => number;
  logger: Logger;
  /** A "slow down" up to this long is waited out while sending (keeps replies in order). */
  maxInlineWaitMs?: number;
  /** How often the typing indicator is repeated; the platform's own expiry sets the default. */
  typingEveryMs?: number;
}

/** The channel's "typing…" while a wake runs, repeated before the platform lets it lapse. */
export function typingIndicators(
  o: ChatChannelOptions,
  pulse: (to: ReplyTarget) => Promise<void>,
  defaultEveryMs: number,
): WaitingIndicators {
  return new WaitingIndicators({
    pulse,
    everyMs: o.typingEveryMs ?? defaultEveryMs,
    logger: o.logger,
    clock: o.clock,
  });
}

import { ChannelSendError } from "../types";
import { GraphApiError } from "./graph-api";

/**
 * How a failed Cloud API call is retried, by Graph error code (WhatsApp docs, "Error codes";
 * Meta recommends codes over HTTP statuses). Throttling codes wait; Meta sends no
 * retry_after, so the wait is a Retry-After header if any, else what the limit implies.
 */
const THROTTLED_MS: Record<number, number> = {
  4: 60_000, // app-level call rate limit (rolling window)
  17: 60_000, // user call rate limit
  32: 60_000, // page call rate limit
  613: 60_000, // calls within one hour exceeded
  80007: 60_000, // business account rate limit
  130429: 2_000, // throughput (messages per second) reached
  131056: 6_000, // pair rate limit: about one message per 6 s to the same person
};
/** Temporary on Meta's side: retried with the inbox's back-off. */
const TRANSIENT = new Set([1, 2, 131000, 131016, 133004]);

export function toSendError(err: unknown): ChannelSendError {
  if (!(err instanceof GraphApiError))
    return new ChannelSendError(`WhatsApp: ${(err as Error).message ?? String(err)}`);
  const throttled = THROTTLED_MS[err.graphCode];
  if (throttled !== undefined || err.httpStatus === 429)
    return new ChannelSendError(err.message, {
      retryAfterMs: err.retryAfterMs ?? throttled ?? 60_000,
    });
  const transient = err.httpStatus === 0 || err.httpStatus >= 500 || TRANSIENT.has(err.graphCode);
  // Everything else (expired token, 24-hour window closed, number not on WhatsApp, bad
  // parameter) fails the same way again.
  return new ChannelSendError(err.message, { permanent: !transient });
}

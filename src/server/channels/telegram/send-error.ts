import { ChannelSendError } from "../types";
import { TelegramApiError } from "./telegram-api";

/**
 * How a failed Bot API call is retried: 429 carries `retry_after` seconds (flood control);
 * 400/401/403/404 (chat not found, bot blocked, bad token, …) cannot succeed by repeating;
 * 5xx and unreachable are retried by the inbox's back-off.
 */
export function toSendError(err: unknown): ChannelSendError {
  if (!(err instanceof TelegramApiError))
    return new ChannelSendError(`Telegram: ${(err as Error).message ?? String(err)}`);
  if (err.errorCode === 429)
    return new ChannelSendError(err.message, {
      retryAfterMs: Math.max(1, err.retryAfterS ?? 1) * 1000,
    });
  const permanent = err.errorCode >= 400 && err.errorCode < 500;
  return new ChannelSendError(err.message, { permanent });
}

import { createHmac } from "node:crypto";
import { secretEquals } from "../../../protocol/constant-time";
import { ChannelRequestError } from "../types";

/** The header Telegram sends with the `secret_token` given to setWebhook (Bot API docs). */
export const SECRET_HEADER = "x-telegram-bot-api-secret-token";

/**
 * The secret_token ClawRun hands to setWebhook when TELEGRAM_WEBHOOK_SECRET is not set:
 * derived from ClawRun's own webhook secret, so there is one less variable to create. 43
 * characters of [A-Za-z0-9_-], inside Telegram's allowed 1-256 of that alphabet.
 */
export function deriveSecretToken(clawrunWebhookSecret: string): string {
  return createHmac("sha256", clawrunWebhookSecret)
    .update("clawrun telegram secret_token")
    .digest("base64url");
}

/** Telegram does not sign updates: the secret header is compared in constant time. */
export function checkSecretToken(
  headers: { get(name: string): string | null },
  expected: string,
): void {
  const given = headers.get(SECRET_HEADER);
  if (given === null)
    throw new ChannelRequestError(
      401,
      "unauthorized",
      "missing X-Telegram-Bot-Api-Secret-Token header (set by setWebhook's secret_token)",
    );
  if (!secretEquals(given, expected))
    throw new ChannelRequestError(
      401,
      "unauthorized",
      "X-Telegram-Bot-Api-Secret-Token does not match this deployment's secret_token",
    );
}

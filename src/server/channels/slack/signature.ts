import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * Slack's request signing (docs/channels/slack.md, "How requests are checked"): the
 * X-Slack-Signature header is "v0=" + hex HMAC-SHA256, keyed with the app's signing secret,
 * of "v0:" + X-Slack-Request-Timestamp + ":" + the raw body. A timestamp more than five
 * minutes from our clock is refused, so a captured request cannot be replayed later.
 */
export const SLACK_MAX_SKEW_MS = 5 * 60_000;

export type SlackSignatureFailure = "missing" | "bad-timestamp" | "stale" | "mismatch";

export const SLACK_SIGNATURE_FAILURES: Record<SlackSignatureFailure, string> = {
  missing: "missing X-Slack-Signature or X-Slack-Request-Timestamp header",
  "bad-timestamp": "X-Slack-Request-Timestamp: expected Unix seconds",
  stale:
    "X-Slack-Request-Timestamp: more than 5 minutes away from this server's clock (a replayed or delayed request)",
  mismatch:
    "X-Slack-Signature: does not match the body (is SLACK_SIGNING_SECRET the app's signing secret?)",
};

/** "v0=<hex>" for a timestamp (Unix seconds, as sent) and the exact body bytes. */
export function slackSignature(
  secret: string,
  timestamp: string,
  rawBody: Buffer | string,
): string {
  const mac = createHmac("sha256", secret);
  mac.update(`v0:${timestamp}:`);
  mac.update(rawBody);
  return `v0=${mac.digest("hex")}`;
}

export function verifySlackSignature(
  secret: string,
  headers: { get(name: string): string | null },
  rawBody: Buffer,
  nowMs: number,
): { ok: true } | { ok: false; reason: SlackSignatureFailure } {
  const timestamp = headers.get("x-slack-request-timestamp");
  const signature = headers.get("x-slack-signature");
  if (!timestamp || !signature) return { ok: false, reason: "missing" };
  if (!/^\d{1,12}$/.test(timestamp)) return { ok: false, reason: "bad-timestamp" };
  if (Math.abs(nowMs - Number(timestamp) * 1000) > SLACK_MAX_SKEW_MS)
    return { ok: false, reason: "stale" };
  const expected = Buffer.from(slackSignature(secret, timestamp, rawBody));
  const given = Buffer.from(signature);
  // Constant-time compare; lengths differ only for a malformed header.
  if (given.length !== expected.length || !timingSafeEqual(given, expected))
    return { ok: false, reason: "mismatch" };
  return { ok: true };
}

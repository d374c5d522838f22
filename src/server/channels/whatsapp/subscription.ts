import { secretEquals } from "../../../protocol/constant-time";
import type { ChannelResponse } from "../types";

/**
 * Meta's webhook verification (Graph API "Webhooks: Verification Requests"): a GET with
 * `hub.mode=subscribe`, `hub.verify_token` (what was typed into the App Dashboard) and
 * `hub.challenge`; the endpoint answers 200 with the challenge as the body, else 403.
 */
export function answerVerification(query: URLSearchParams, verifyToken: string): ChannelResponse {
  const mode = query.get("hub.mode");
  const token = query.get("hub.verify_token");
  const challenge = query.get("hub.challenge");
  const refuse = (message: string): ChannelResponse => ({
    status: 403,
    body: { error: { code: "forbidden", message } },
  });
  if (mode !== "subscribe") return refuse('hub.mode: expected "subscribe"');
  if (token === null || !secretEquals(token, verifyToken))
    return refuse("hub.verify_token does not match WHATSAPP_VERIFY_TOKEN");
  if (!challenge || challenge.length > 1024)
    return refuse("hub.challenge: expected a non-empty value");
  return { status: 200, body: challenge, headers: { "content-type": "text/plain" } };
}

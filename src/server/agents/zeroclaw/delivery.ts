import { createHash } from "node:crypto";
import { z } from "zod";
import type { AgentMessage } from "../../../protocol/agent-message";
import { parseJsonText, postToDaemon } from "../http-delivery";
import { AgentDeliveryError, type DaemonTransport, type DeliveryResult } from "../types";
import { ZEROCLAW_ALIAS } from "./config-file";

/**
 * Delivery to ZeroClaw's gateway webhook (docs/agents/zeroclaw.md): `POST /webhook` with
 * `{ "message" }`, the bearer token, `X-Idempotency-Key` (a repeat within the TTL is answered
 * `{ "status": "duplicate" }` and not run again) and `X-Session-Id`, which keys the memory
 * of one conversation. The reply is `{ "response", "model" }`.
 */

/** ZeroClaw drops a session id outside `[A-Za-z0-9._-]{1,128}`, so conversation ids are hashed into one. */
export function zeroclawSessionId(conversation: string): string {
  return `c-${createHash("sha256").update(conversation).digest("base64url")}`;
}

/** The message id when it is a plain header value; otherwise a stable hash of it. */
export function zeroclawIdempotencyKey(messageId: string): string {
  return /^[\x21-\x7e]{1,256}$/.test(messageId)
    ? messageId
    : `sha256-${createHash("sha256").update(messageId).digest("hex")}`;
}

export function zeroclawWebhookRequest(message: AgentMessage, token: string) {
  return {
    path: `/webhook?agent=${ZEROCLAW_ALIAS}`,
    headers: {
      "content-type": "application/json",
      authorization: `Bearer ${token}`,
      "x-idempotency-key": zeroclawIdempotencyKey(message.id),
      "x-session-id": zeroclawSessionId(message.conversation),
    },
    body: JSON.stringify({ message: message.text }),
  };
}

const replySchema = z.looseObject({ response: z.string(), model: z.string().optional() });
const duplicateSchema = z.looseObject({ status: z.literal("duplicate") });
const errorSchema = z.looseObject({ error: z.string() });

/**
 * Pure: a 2xx body -> the delivery result. A duplicate means ZeroClaw already ran this
 * message id and does not repeat its answer: the result says so (`details.duplicate`) with
 * an empty reply, so the caller can skip sending it instead of retrying forever.
 */
export function parseZeroClawReply(
  text: string,
): { ok: true; result: DeliveryResult } | { ok: false; problem: string } {
  const body = parseJsonText(text);
  if (!body.ok) return body;
  const json = body.json;
  const reply = replySchema.safeParse(json);
  if (reply.success) {
    return {
      ok: true,
      result: { reply: reply.data.response, details: { model: reply.data.model ?? null } },
    };
  }
  if (duplicateSchema.safeParse(json).success) {
    return { ok: true, result: { reply: "", details: { duplicate: true } } };
  }
  return { ok: false, problem: 'expected { "response": "..." }' };
}

function describeRefusal(status: number, text: string): string {
  try {
    const parsed = errorSchema.safeParse(JSON.parse(text));
    if (parsed.success) return `zeroclaw answered ${status}: ${parsed.data.error.slice(0, 200)}`;
  } catch {
    // Not JSON: quote the body.
  }
  return `zeroclaw answered ${status}: ${text.slice(0, 200)}`;
}

export async function deliverToZeroClaw(
  door: DaemonTransport,
  token: string,
  message: AgentMessage,
  signal: AbortSignal,
): Promise<DeliveryResult> {
  const req = zeroclawWebhookRequest(message, token);
  const answer = await postToDaemon(
    door,
    req.path,
    { method: "POST", headers: req.headers, body: req.body, signal },
    "zeroclaw",
  );
  const { status, text } = answer;
  if (!answer.ok) throw new AgentDeliveryError(describeRefusal(status, text), status);
  const parsed = parseZeroClawReply(text);
  if (!parsed.ok) {
    throw new AgentDeliveryError(`zeroclaw answered ${status} but ${parsed.problem}`, status);
  }
  return parsed.result;
}

import { z } from "zod";
import type { AgentMessage } from "../../../protocol/agent-message";
import { parseJsonText, postToDaemon } from "../http-delivery";
import { AgentDeliveryError, type DaemonTransport, type DeliveryResult } from "../types";

/**
 * Delivery to OpenClaw's OpenAI-compatible endpoint (openclaw package:
 * docs/gateway/openai-http-api.md): `POST /v1/chat/completions` with the gateway token as a
 * bearer token. The `model` names the agent (`openclaw/default`), not a provider model. The
 * OpenAI `user` field makes the gateway derive a stable session from it, so every message of
 * one conversation lands in the same OpenClaw session and the agent remembers it.
 */
export const OPENCLAW_AGENT_MODEL = "openclaw/default";

/** Pure: the session handle for a conversation (the same conversation, the same session). */
export function openclawSessionUser(conversation: string): string {
  return `clawrun:${conversation}`;
}

/** Pure: the request body for one message. */
export function openclawChatRequest(message: AgentMessage) {
  return {
    model: OPENCLAW_AGENT_MODEL,
    user: openclawSessionUser(message.conversation),
    messages: [{ role: "user" as const, content: message.text }],
  };
}

const completionSchema = z.object({
  id: z.string().optional(),
  model: z.string().optional(),
  choices: z
    .array(
      z.object({
        message: z.object({ content: z.string().nullable().optional() }),
        finish_reason: z.string().nullable().optional(),
      }),
    )
    .min(1),
  usage: z.record(z.string(), z.unknown()).optional(),
});

/** OpenAI's error body, which the gateway also uses: `{ "error": { "message", "type" } }`. */
const errorSchema = z.object({
  error: z.object({ message: z.string(), type: z.string().optional() }),
});

/** Pure: the reply text and details of a 2xx body, or why it is unusable. */
export function parseOpenClawCompletion(
  text: string,
): { ok: true; result: DeliveryResult } | { ok: false; problem: string } {
  const body = parseJsonText(text);
  if (!body.ok) return body;
  const parsed = completionSchema.safeParse(body.json);
  if (!parsed.success) {
    return { ok: false, problem: "expected a chat.completion with choices[0].message" };
  }
  const choice = parsed.data.choices[0];
  const content = choice?.message.content;
  if (typeof content !== "string") {
    return { ok: false, problem: "choices[0].message.content is empty (no text reply)" };
  }
  const details: Record<string, unknown> = { finishReason: choice?.finish_reason ?? null };
  if (parsed.data.id !== undefined) details.completionId = parsed.data.id;
  if (parsed.data.usage !== undefined) details.usage = parsed.data.usage;
  return { ok: true, result: { reply: content, details } };
}

/** Pure: a short, secret-free description of a refusal. */
function describeRefusal(status: number, text: string): string {
  try {
    const parsed = errorSchema.safeParse(JSON.parse(text));
    if (parsed.success) {
      const type = parsed.data.error.type ? ` (${parsed.data.error.type})` : "";
      return `openclaw gateway answered ${status}${type}: ${parsed.data.error.message.slice(0, 200)}`;
    }
  } catch {
    // Not JSON: quote the start of the body instead.
  }
  return `openclaw gateway answered ${status}: ${text.slice(0, 200)}`;
}

/** Hands one message to the gateway through `door` and returns the agent's reply. */
export async function deliverToOpenClaw(
  door: DaemonTransport,
  gatewayToken: string,
  message: AgentMessage,
  signal: AbortSignal,
): Promise<DeliveryResult> {
  const path = "/v1/chat/completions";
  const answer = await postToDaemon(
    door,
    path,
    {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${gatewayToken}` },
      body: JSON.stringify(openclawChatRequest(message)),
      signal,
    },
    "openclaw gateway",
  );
  const { status, text } = answer;
  if (!answer.ok) throw new AgentDeliveryError(describeRefusal(status, text), status);
  const parsed = parseOpenClawCompletion(text);
  if (!parsed.ok) {
    throw new AgentDeliveryError(
      `openclaw gateway answered ${status} but ${parsed.problem}`,
      status,
    );
  }
  return parsed.result;
}

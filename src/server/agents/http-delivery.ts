import { type AgentMessage, parseAgentReply } from "../../protocol/agent-message";
import {
  AgentDeliveryError,
  AgentUnreachableError,
  type DaemonRequestInit,
  type DaemonTransport,
  type DeliveryResult,
} from "./types";

/** POSTs a message to `path` on a daemon through its door, in JSON or plain text, and reads its reply. */
export async function deliverOverHttp(
  door: DaemonTransport,
  path: string,
  message: AgentMessage,
  format: "json" | "text",
  signal: AbortSignal,
): Promise<DeliveryResult> {
  const init: DaemonRequestInit =
    format === "json"
      ? {
          method: "POST",
          body: JSON.stringify(message),
          headers: { "content-type": "application/json" },
          signal,
        }
      : {
          method: "POST",
          body: message.text,
          headers: {
            "content-type": "text/plain; charset=utf-8",
            "x-clawrun-message-id": message.id,
            "x-clawrun-conversation": encodeURIComponent(message.conversation),
          },
          signal,
        };
  const answer = await postToDaemon(door, path, init, "agent");
  if (!answer.ok)
    throw new AgentDeliveryError(
      `agent answered ${answer.status}: ${answer.text.slice(0, 200)}`,
      answer.status,
    );
  return parseReply(answer.text, answer.contentType);
}

/** A daemon's answer to one POST, read whole. */
export interface DaemonAnswer {
  ok: boolean;
  status: number;
  text: string;
  contentType: string | null;
}

/**
 * One request to a daemon through its door, its failures sorted (types.ts): no answer before
 * the delivery timeout counts against the message (bounded retries, then a dead letter);
 * nobody answering at all is a lifecycle fact about the sandbox. `who` names the daemon in errors.
 */
export async function postToDaemon(
  door: DaemonTransport,
  path: string,
  init: DaemonRequestInit,
  who: string,
): Promise<DaemonAnswer> {
  const url = `${door.label} ${path}`;
  let res: Response;
  try {
    res = await door.fetch(path, init);
  } catch (err) {
    const timedOut =
      init.signal?.aborted ||
      (err instanceof Error && (err.name === "TimeoutError" || err.name === "AbortError"));
    if (timedOut)
      throw new AgentDeliveryError(
        `${who} at ${url} did not answer in time (no answer before the delivery timeout)`,
        null,
      );
    throw new AgentUnreachableError(`${who} unreachable at ${url}: ${(err as Error).message}`, err);
  }
  const text = await res.text();
  return { ok: res.ok, status: res.status, text, contentType: res.headers.get("content-type") };
}

/** Pure: a daemon's body as JSON, or why it is not. */
export function parseJsonText(
  text: string,
): { ok: true; json: unknown } | { ok: false; problem: string } {
  try {
    return { ok: true, json: JSON.parse(text) };
  } catch {
    return { ok: false, problem: `not JSON: ${text.slice(0, 200)}` };
  }
}

/** JSON `{ reply, ... }` when the daemon sends JSON; otherwise the body itself is the reply. */
function parseReply(text: string, contentType: string | null): DeliveryResult {
  if (contentType?.includes("json")) {
    try {
      const parsed = parseAgentReply(JSON.parse(text));
      if (parsed.ok) return parsed.value;
    } catch {
      // Not JSON after all: fall through and treat the body as the reply text.
    }
  }
  return { reply: text, details: {} };
}

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
  const url = `${door.label} ${path}`;
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
  let res: Response;
  try {
    res = await door.fetch(path, init);
  } catch (err) {
    // A daemon that accepted the message and then hangs counts against the message (bounded
    // retries, then a dead letter); one that nobody answers for is a lifecycle matter.
    if (err instanceof Error && (err.name === "TimeoutError" || err.name === "AbortError"))
      throw new AgentDeliveryError(`agent did not answer in time at ${url}`, null);
    throw new AgentUnreachableError(`agent unreachable at ${url}: ${(err as Error).message}`, err);
  }
  const text = await res.text();
  if (!res.ok)
    throw new AgentDeliveryError(`agent answered ${res.status}: ${text.slice(0, 200)}`, res.status);
  return parseReply(text, res.headers.get("content-type"));
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

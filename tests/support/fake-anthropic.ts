import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A local stand-in for Anthropic's Messages API (POST /v1/messages), from its documented
 * formats: a JSON message with `usage`, or with `stream: true` the event sequence
 * message_start (input usage), content_block_start/delta/stop, message_delta (output usage),
 * message_stop. Requires `x-api-key` when `apiKey` is set. Every request is recorded.
 */
export interface FakeAnthropic {
  /** `http://127.0.0.1:<port>/v1`. */
  baseUrl: string;
  requests: { path: string; headers: IncomingMessage["headers"]; body: unknown }[];
  close(): Promise<void>;
}

export async function startFakeAnthropic(opts: { apiKey?: string } = {}): Promise<FakeAnthropic> {
  const requests: FakeAnthropic["requests"] = [];
  const server = createServer(async (req, res) => {
    let raw = "";
    for await (const chunk of req) raw += chunk;
    const body = raw ? (JSON.parse(raw) as Record<string, unknown>) : null;
    requests.push({ path: req.url ?? "", headers: req.headers, body });
    const json = (status: number, value: unknown) =>
      res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(value));
    if (opts.apiKey && req.headers["x-api-key"] !== opts.apiKey) {
      return json(401, {
        type: "error",
        error: { type: "authentication_error", message: "invalid x-api-key" },
      });
    }
    if (req.url !== "/v1/messages" || !body) {
      return json(404, { type: "error", error: { type: "not_found_error", message: "not found" } });
    }
    const model = String(body.model);
    const text = "Hello from the fake Anthropic";
    const input = Math.ceil(raw.length / 4);
    const message = {
      id: "msg_fake",
      type: "message",
      role: "assistant",
      model,
      content: [{ type: "text", text }],
      stop_reason: "end_turn",
      stop_sequence: null,
      usage: {
        input_tokens: input,
        output_tokens: 7,
        cache_read_input_tokens: 3,
        cache_creation_input_tokens: 0,
      },
    };
    if (body.stream !== true) return json(200, message);
    res.writeHead(200, { "content-type": "text/event-stream" });
    const send = (type: string, data: object) =>
      res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
    send("message_start", {
      message: {
        ...message,
        content: [],
        stop_reason: null,
        usage: { ...message.usage, output_tokens: 1 },
      },
    });
    send("content_block_start", { index: 0, content_block: { type: "text", text: "" } });
    send("ping", {});
    for (const word of text.split(" ")) {
      send("content_block_delta", { index: 0, delta: { type: "text_delta", text: `${word} ` } });
    }
    send("content_block_stop", { index: 0 });
    send("message_delta", {
      delta: { stop_reason: "end_turn", stop_sequence: null },
      usage: { output_tokens: 7 },
    });
    send("message_stop", {});
    res.end();
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

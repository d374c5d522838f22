import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { ChatCompletion, ChatCompletionChunk } from "openai/resources/chat/completions";
import type { Model, ModelsPage } from "openai/resources/models";
import { z } from "zod";
import { freePort } from "./free-port";

/**
 * A local stand-in for an OpenAI-compatible model server (the model provider is a third-party
 * service this machine cannot reach). It speaks the documented Chat Completions wire format —
 * plain JSON and `stream: true` server-sent events — plus the model list, and answers
 * deterministically with text that shows what it was sent, so a test can see conversation
 * history reach the model. Response objects are typed with the official `openai` SDK's own
 * types. Every request is recorded.
 */

export interface RecordedRequest {
  method: string;
  /** Path without the query string. */
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON body, or the raw text when it was not JSON; undefined when empty. */
  body: unknown;
}

export interface FakeOpenAIOptions {
  /** When set, requests must carry `Authorization: Bearer <apiKey>` (else 401). */
  apiKey?: string;
  /** Model ids listed by GET /v1/models; any model id is accepted by chat completions. */
  models?: string[];
}

export interface FakeOpenAI {
  /** `http://127.0.0.1:<port>/v1`: what an OpenAI client takes as its base URL. */
  baseUrl: string;
  port: number;
  /** Every request received, in order. */
  requests: RecordedRequest[];
  /** The bodies of the chat-completion requests that were accepted, in order. */
  chatRequests(): ChatRequest[];
  close(): Promise<void>;
}

const textPart = z.looseObject({ type: z.literal("text"), text: z.string() });
const contentSchema = z.union([
  z.string(),
  z.array(z.union([textPart, z.looseObject({ type: z.string() })])),
  z.null(),
]);
const messageSchema = z.looseObject({
  role: z.enum(["system", "developer", "user", "assistant", "tool", "function"], {
    error: "expected one of system, developer, user, assistant, tool, function",
  }),
  content: contentSchema.optional(),
});
const chatRequestSchema = z.looseObject({
  model: z.string({ error: "expected a model id string" }).min(1),
  messages: z
    .array(messageSchema, { error: "expected an array of messages" })
    .min(1, { error: "expected at least one message" }),
  stream: z.boolean().nullish(),
  stream_options: z.looseObject({ include_usage: z.boolean().optional() }).nullish(),
});
export type ChatRequest = z.infer<typeof chatRequestSchema>;
type ChatMessage = z.infer<typeof messageSchema>;

/** The text of a message's content (string, or the text parts of an array). */
export function messageText(message: ChatMessage): string {
  const { content } = message;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((part) => (part.type === "text" && typeof part.text === "string" ? part.text : ""))
    .join("");
}

/** Longest excerpt of one user message quoted back in a reply. */
const EXCERPT_CHARS = 120;

/**
 * The deterministic reply: how many messages arrived, and the first line of every user
 * message in order — so a test sees earlier turns of a conversation reach the model (agents
 * such as OpenClaw add their own context messages; those show up too). Pure, so tests can
 * compute the expected answer.
 */
export function fakeReplyText(messages: readonly ChatMessage[]): string {
  const heard = messages
    .filter((m) => m.role === "user")
    .map((m) => JSON.stringify((messageText(m).split("\n")[0] ?? "").slice(0, EXCERPT_CHARS)));
  return `fake-openai heard ${heard.length} user message(s) in ${messages.length} messages: ${heard.join(" | ")}`;
}

/** OpenAI's documented error body: `{ "error": { message, type, param, code } }`. */
function sendError(
  res: ServerResponse,
  status: number,
  message: string,
  type: string,
  code: string | null,
  param: string | null = null,
): void {
  sendJson(res, status, { error: { message, type, param, code } });
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const raw = Buffer.concat(chunks).toString();
  if (raw === "") return undefined;
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

/** Rough token count (about four characters a token) so usage numbers are plausible. */
function tokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}

export async function startFakeOpenAI(opts: FakeOpenAIOptions = {}): Promise<FakeOpenAI> {
  const requests: RecordedRequest[] = [];
  const accepted: ChatRequest[] = [];
  const modelIds = opts.models ?? ["fake-model"];
  let completions = 0;

  const server = createServer((req, res) => {
    handle(req, res).catch((err: Error) => {
      if (!res.headersSent) sendError(res, 500, err.message, "server_error", null);
      else res.end();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? "/").split("?")[0] ?? "/";
    const body = await readBody(req);
    requests.push({ method: req.method ?? "GET", path, headers: { ...req.headers }, body });

    if (opts.apiKey !== undefined && req.headers.authorization !== `Bearer ${opts.apiKey}`) {
      return sendError(
        res,
        401,
        "Incorrect API key provided (expected header Authorization: Bearer <key>).",
        "invalid_request_error",
        "invalid_api_key",
      );
    }

    if (req.method === "GET" && path === "/v1/models") {
      const page: Pick<ModelsPage, "data"> & { object: "list" } = {
        object: "list",
        data: modelIds.map(modelObject),
      };
      return sendJson(res, 200, page);
    }
    const one = /^\/v1\/models\/(.+)$/.exec(path);
    if (req.method === "GET" && one?.[1]) {
      const id = decodeURIComponent(one[1]);
      if (!modelIds.includes(id))
        return sendError(
          res,
          404,
          `The model '${id}' does not exist`,
          "invalid_request_error",
          "model_not_found",
          "model",
        );
      return sendJson(res, 200, modelObject(id));
    }
    if (path === "/v1/chat/completions") {
      if (req.method !== "POST")
        return sendError(
          res,
          405,
          "Use POST for /v1/chat/completions",
          "invalid_request_error",
          null,
        );
      const parsed = chatRequestSchema.safeParse(body);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        const param = issue?.path.join(".") || null;
        return sendError(
          res,
          400,
          `Invalid request body: ${param ?? "body"}: ${issue?.message ?? "expected a JSON object"}`,
          "invalid_request_error",
          null,
          param,
        );
      }
      accepted.push(parsed.data);
      completions += 1;
      const id = `chatcmpl-fake-${completions}`;
      const text = fakeReplyText(parsed.data.messages);
      const promptTokens = tokens(parsed.data.messages.map(messageText).join("\n"));
      const usage = {
        prompt_tokens: promptTokens,
        completion_tokens: tokens(text),
        total_tokens: promptTokens + tokens(text),
      };
      if (parsed.data.stream) {
        return streamCompletion(res, id, parsed.data, text, usage);
      }
      const completion: ChatCompletion = {
        id,
        object: "chat.completion",
        created: Math.floor(Date.now() / 1000),
        model: parsed.data.model,
        choices: [
          {
            index: 0,
            message: { role: "assistant", content: text, refusal: null },
            logprobs: null,
            finish_reason: "stop",
          },
        ],
        usage,
      };
      return sendJson(res, 200, completion);
    }
    sendError(
      res,
      404,
      `Unknown request URL: ${req.method} ${path}`,
      "invalid_request_error",
      null,
    );
  }

  const port = await freePort();
  await new Promise<void>((r) => server.listen(port, "127.0.0.1", () => r()));
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    port,
    requests,
    chatRequests: () => [...accepted],
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

function modelObject(id: string): Model {
  return { id, object: "model", created: 1_700_000_000, owned_by: "fake-openai" };
}

/**
 * The documented streaming shape: `data: <chat.completion.chunk>` events — a role delta,
 * content deltas, a final chunk with `finish_reason`, an optional usage-only chunk when
 * `stream_options.include_usage` is set — then `data: [DONE]`.
 */
function streamCompletion(
  res: ServerResponse,
  id: string,
  request: ChatRequest,
  text: string,
  usage: NonNullable<ChatCompletionChunk["usage"]>,
): void {
  const created = Math.floor(Date.now() / 1000);
  const chunk = (
    choices: ChatCompletionChunk["choices"],
    extra: Partial<ChatCompletionChunk> = {},
  ): string => {
    const body: ChatCompletionChunk = {
      id,
      object: "chat.completion.chunk",
      created,
      model: request.model,
      choices,
      ...extra,
    };
    return `data: ${JSON.stringify(body)}\n\n`;
  };
  res.writeHead(200, {
    "content-type": "text/event-stream",
    "cache-control": "no-cache",
    connection: "keep-alive",
  });
  res.write(chunk([{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }]));
  // Split the text so a client must join deltas to read it.
  const middle = Math.ceil(text.length / 2);
  for (const piece of [text.slice(0, middle), text.slice(middle)]) {
    if (piece !== "")
      res.write(chunk([{ index: 0, delta: { content: piece }, finish_reason: null }]));
  }
  res.write(chunk([{ index: 0, delta: {}, finish_reason: "stop" }]));
  if (request.stream_options?.include_usage) res.write(chunk([], { usage }));
  res.end("data: [DONE]\n\n");
}

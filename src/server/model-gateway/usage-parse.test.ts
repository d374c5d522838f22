import { describe, expect, it } from "vitest";
import { SseUsageReader, usageFromBody } from "./usage-parse";

describe("usage from a non-streamed body", () => {
  it.each([
    [
      "chat completions with cached tokens",
      "openai",
      {
        usage: {
          prompt_tokens: 100,
          completion_tokens: 20,
          prompt_tokens_details: { cached_tokens: 40 },
        },
      },
      { input: 60, output: 20, cachedInput: 40, cacheWrite: 0 },
    ],
    [
      "responses API",
      "openai",
      { usage: { input_tokens: 10, output_tokens: 5, input_tokens_details: { cached_tokens: 0 } } },
      { input: 10, output: 5, cachedInput: 0, cacheWrite: 0 },
    ],
    [
      "anthropic messages with cache read and write",
      "anthropic",
      {
        usage: {
          input_tokens: 12,
          output_tokens: 7,
          cache_read_input_tokens: 100,
          cache_creation_input_tokens: 30,
        },
      },
      { input: 12, output: 7, cachedInput: 100, cacheWrite: 30 },
    ],
    ["no usage", "openai", { choices: [] }, null],
    [
      "odd values count as 0",
      "openai",
      { usage: { prompt_tokens: "9", completion_tokens: -1 } },
      { input: 0, output: 0, cachedInput: 0, cacheWrite: 0 },
    ],
  ] as const)("%s", (_name, shape, body, usage) => {
    expect(usageFromBody(shape, body)).toEqual(usage);
  });
});

const sse = (events: unknown[]) => events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join("");

/** Feeds `text` in pieces of `size` characters, to split lines and events anywhere. */
function read(shape: "openai" | "anthropic", text: string, size: number) {
  const r = new SseUsageReader(shape);
  for (let i = 0; i < text.length; i += size) r.push(text.slice(i, i + size));
  return { usage: r.result(), model: r.model };
}

describe("usage from a stream", () => {
  const openaiStream = `${sse([
    {
      id: "c",
      object: "chat.completion.chunk",
      model: "gpt-4o-2024-08-06",
      choices: [{ index: 0, delta: { content: "Hi" } }],
      usage: null,
    },
    {
      id: "c",
      object: "chat.completion.chunk",
      model: "gpt-4o-2024-08-06",
      choices: [],
      usage: {
        prompt_tokens: 9,
        completion_tokens: 3,
        prompt_tokens_details: { cached_tokens: 0 },
      },
    },
  ])}data: [DONE]\n\n`;

  const anthropicStream = [
    "event: message_start\n",
    `data: ${JSON.stringify({ type: "message_start", message: { id: "m", model: "claude-sonnet-4-20250514", usage: { input_tokens: 25, output_tokens: 1, cache_read_input_tokens: 5 } } })}\n\n`,
    "event: content_block_delta\n",
    `data: ${JSON.stringify({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Hello" } })}\n\n`,
    "event: message_delta\n",
    `data: ${JSON.stringify({ type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: 15 } })}\n\n`,
    "event: message_stop\n",
    `data: {"type":"message_stop"}\n\n`,
  ].join("");

  it.each([1, 7, 64, 100_000])(
    "OpenAI's final usage chunk, fed %i characters at a time",
    (size) => {
      expect(read("openai", openaiStream, size)).toEqual({
        usage: { input: 9, output: 3, cachedInput: 0, cacheWrite: 0 },
        model: "gpt-4o-2024-08-06",
      });
    },
  );

  it.each([1, 13, 100_000])("Anthropic's message_start + message_delta, %i at a time", (size) => {
    expect(read("anthropic", anthropicStream, size)).toEqual({
      usage: { input: 25, output: 15, cachedInput: 5, cacheWrite: 0 },
      model: "claude-sonnet-4-20250514",
    });
  });

  it("reads CRLF line ends and a last line without a newline", () => {
    const text = `data: ${JSON.stringify({ usage: { prompt_tokens: 1, completion_tokens: 2 } })}`;
    expect(read("openai", `event: x\r\n${text}`, 5).usage).toEqual({
      input: 1,
      output: 2,
      cachedInput: 0,
      cacheWrite: 0,
    });
  });

  it("reads the Responses API's response.completed event", () => {
    const text = sse([
      { type: "response.output_text.delta", delta: "hi" },
      {
        type: "response.completed",
        response: { model: "gpt-5", usage: { input_tokens: 4, output_tokens: 6 } },
      },
    ]);
    expect(read("openai", text, 10)).toEqual({
      usage: { input: 4, output: 6, cachedInput: 0, cacheWrite: 0 },
      model: "gpt-5",
    });
  });

  it("is null when the stream carried no usage (cut off, or not asked for)", () => {
    expect(
      read(
        "openai",
        `${sse([{ choices: [{ delta: { content: "x" } }] }])}garbage\ndata: {not json\n`,
        3,
      ).usage,
    ).toBeNull();
  });
});

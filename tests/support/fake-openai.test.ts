import OpenAI from "openai";
import { afterEach, describe, expect, it } from "vitest";
import { type FakeOpenAI, fakeReplyText, startFakeOpenAI } from "./fake-openai";

// The official SDK is the client: if the fake drifted from the documented wire format, the
// SDK's own parsing (JSON and SSE) would fail here.

let fake: FakeOpenAI | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

async function start(apiKey = "sk-test") {
  fake = await startFakeOpenAI({ apiKey, models: ["fake-model", "other-model"] });
  return { fake, client: new OpenAI({ apiKey, baseURL: fake.baseUrl, maxRetries: 0 }) };
}

describe("fakeReplyText", () => {
  it.each([
    [
      [{ role: "user" as const, content: "hi" }],
      'fake-openai heard 1 user message(s) in 1 messages: "hi"',
    ],
    [
      [
        { role: "system" as const, content: "be nice" },
        { role: "user" as const, content: "first line\nsecond line" },
        { role: "assistant" as const, content: "ok" },
        { role: "user" as const, content: [{ type: "text", text: "again" }] },
      ],
      'fake-openai heard 2 user message(s) in 4 messages: "first line" | "again"',
    ],
    [
      [{ role: "system" as const, content: null }],
      "fake-openai heard 0 user message(s) in 1 messages: ",
    ],
  ])("%j -> %s", (messages, expected) => {
    expect(fakeReplyText(messages)).toBe(expected);
  });

  it("quotes at most 120 characters of a message", () => {
    const reply = fakeReplyText([{ role: "user", content: "x".repeat(500) }]);
    expect(reply).toContain(`"${"x".repeat(120)}"`);
    expect(reply).not.toContain("x".repeat(121));
  });
});

describe("fake OpenAI server", () => {
  it("answers a chat completion with what it was sent, and records it", async () => {
    const { fake, client } = await start();
    const completion = await client.chat.completions.create({
      model: "fake-model",
      messages: [
        { role: "user", content: "My name is Zed" },
        { role: "assistant", content: "Hello Zed" },
        { role: "user", content: "What is my name?" },
      ],
    });
    expect(completion.object).toBe("chat.completion");
    expect(completion.choices[0]?.finish_reason).toBe("stop");
    expect(completion.choices[0]?.message.content).toBe(
      'fake-openai heard 2 user message(s) in 3 messages: "My name is Zed" | "What is my name?"',
    );
    expect(completion.usage?.total_tokens).toBeGreaterThan(0);
    expect(fake.chatRequests()).toHaveLength(1);
    expect(fake.chatRequests()[0]?.messages[0]?.content).toBe("My name is Zed");
    expect(fake.requests[0]?.headers.authorization).toBe("Bearer sk-test");
  });

  it("streams the same text as server-sent chunks, with usage when asked", async () => {
    const { client } = await start();
    const stream = await client.chat.completions.create({
      model: "fake-model",
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: "user", content: "stream me" }],
    });
    let text = "";
    const finishReasons: (string | null)[] = [];
    let usage: unknown;
    let chunks = 0;
    for await (const chunk of stream) {
      chunks += 1;
      expect(chunk.object).toBe("chat.completion.chunk");
      for (const choice of chunk.choices) {
        text += choice.delta.content ?? "";
        finishReasons.push(choice.finish_reason);
      }
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toBe(fakeReplyText([{ role: "user", content: "stream me" }]));
    expect(chunks).toBeGreaterThanOrEqual(4); // role, two content pieces, finish, usage
    expect(finishReasons.at(-1)).toBe("stop");
    expect(usage).toMatchObject({ total_tokens: expect.any(Number) });
  });

  it("lists and fetches models", async () => {
    const { client } = await start();
    const ids: string[] = [];
    for await (const m of client.models.list()) ids.push(m.id);
    expect(ids).toEqual(["fake-model", "other-model"]);
    expect((await client.models.retrieve("other-model")).owned_by).toBe("fake-openai");
    await expect(client.models.retrieve("nope")).rejects.toMatchObject({
      status: 404,
      code: "model_not_found",
    });
  });

  it("refuses a wrong key with OpenAI's 401 error shape and records the attempt", async () => {
    fake = await startFakeOpenAI({ apiKey: "sk-right" });
    const client = new OpenAI({ apiKey: "sk-wrong", baseURL: fake.baseUrl, maxRetries: 0 });
    await expect(
      client.chat.completions.create({ model: "m", messages: [{ role: "user", content: "x" }] }),
    ).rejects.toMatchObject({
      status: 401,
      code: "invalid_api_key",
      type: "invalid_request_error",
    });
    expect(fake.requests).toHaveLength(1);
    expect(fake.chatRequests()).toHaveLength(0);
  });

  it("rejects a malformed body with a 400 naming the parameter", async () => {
    fake = await startFakeOpenAI();
    const res = await fetch(`${fake.baseUrl}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "m", messages: [] }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error: {
        message: "Invalid request body: messages: expected at least one message",
        type: "invalid_request_error",
        param: "messages",
        code: null,
      },
    });
    expect(fake.chatRequests()).toHaveLength(0);
  });

  it("answers unknown paths with a 404 error body", async () => {
    fake = await startFakeOpenAI();
    const res = await fetch(`${fake.baseUrl}/embeddings`, { method: "POST", body: "{}" });
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { type: string } }).error.type).toBe(
      "invalid_request_error",
    );
  });
});

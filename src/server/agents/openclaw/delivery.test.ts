import { createServer, type Server } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { doorsForTests } from "../../../../tests/support/door";
import {
  type FakeOpenAI,
  fakeReplyText,
  startFakeOpenAI,
} from "../../../../tests/support/fake-openai";
import { freePort } from "../../../../tests/support/free-port";
import { AgentDeliveryError } from "../types";
import {
  deliverToOpenClaw,
  OPENCLAW_AGENT_MODEL,
  openclawChatRequest,
  parseOpenClawCompletion,
} from "./delivery";

// The gateway's /v1/chat/completions speaks the OpenAI wire format, so the fake OpenAI server
// stands in for it here, with the gateway token as its key. The real gateway is exercised by
// scripts/openclaw/try-gateway.ts (docs/agents/openclaw.md).

const TOKEN = "gw-token-for-tests";
let fake: FakeOpenAI | undefined;
let server: Server | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
  if (server) {
    server.closeAllConnections();
    await new Promise((r) => server?.close(r));
    server = undefined;
  }
});

const doors = doorsForTests();
/** The fake gateway, reached the way ClawRun reaches a daemon: through the sidecar's real door. */
function baseUrlOf(f: FakeOpenAI) {
  return doors.to(`http://127.0.0.1:${f.port}`);
}
const signal = () => AbortSignal.timeout(5_000);

/** A throwaway server answering every request with `status` and `body`. */
async function answerWith(status: number, body: string | null): Promise<string> {
  server = createServer((_req, res) => {
    if (body === null) return; // never answers
    res.writeHead(status, { "content-type": "application/json" }).end(body);
  });
  const port = await freePort();
  await new Promise<void>((r) => server?.listen(port, "127.0.0.1", () => r()));
  return `http://127.0.0.1:${port}`;
}

describe("deliverToOpenClaw", () => {
  it("posts the message with the token and a stable per-conversation session, and returns the text", async () => {
    fake = await startFakeOpenAI({ apiKey: TOKEN });
    const first = await deliverToOpenClaw(
      await baseUrlOf(fake),
      TOKEN,
      { id: "m1", conversation: "telegram:42", text: "hello there" },
      signal(),
    );
    expect(first.reply).toBe(fakeReplyText([{ role: "user", content: "hello there" }]));
    expect(first.details).toMatchObject({ finishReason: "stop", completionId: "chatcmpl-fake-1" });

    await deliverToOpenClaw(
      await baseUrlOf(fake),
      TOKEN,
      { id: "m2", conversation: "telegram:42", text: "again" },
      signal(),
    );
    await deliverToOpenClaw(
      await baseUrlOf(fake),
      TOKEN,
      { id: "m3", conversation: "slack:C1", text: "other" },
      signal(),
    );

    const sent = fake.chatRequests();
    expect(sent.map((r) => [r.model, r.user, r.messages])).toEqual([
      [OPENCLAW_AGENT_MODEL, "clawrun:telegram:42", [{ role: "user", content: "hello there" }]],
      [OPENCLAW_AGENT_MODEL, "clawrun:telegram:42", [{ role: "user", content: "again" }]],
      [OPENCLAW_AGENT_MODEL, "clawrun:slack:C1", [{ role: "user", content: "other" }]],
    ]);
    expect(fake.requests[0]?.path).toBe("/v1/chat/completions");
    expect(fake.requests[0]?.headers.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it("turns a refusal into AgentDeliveryError with the gateway's status and message, not the token", async () => {
    fake = await startFakeOpenAI({ apiKey: TOKEN });
    const err = await deliverToOpenClaw(
      await baseUrlOf(fake),
      "wrong-token",
      { id: "m1", conversation: "c", text: "x" },
      signal(),
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AgentDeliveryError);
    expect((err as AgentDeliveryError).daemonStatus).toBe(401);
    expect((err as Error).message).toMatch(
      /^openclaw gateway answered 401 \(invalid_request_error\): Incorrect API key/,
    );
    expect((err as Error).message).not.toContain("wrong-token");
  });

  it("refuses a 2xx answer without reply text", async () => {
    const url = await answerWith(200, JSON.stringify({ choices: [] }));
    await expect(
      deliverToOpenClaw(
        await doors.to(url),
        TOKEN,
        { id: "m", conversation: "c", text: "x" },
        signal(),
      ),
    ).rejects.toMatchObject({
      name: "AgentDeliveryError",
      daemonStatus: 200,
      message: expect.stringContaining("expected a chat.completion"),
    });
  });
});

describe("openclawChatRequest", () => {
  it("targets the default agent and derives the session from the conversation only", () => {
    expect(openclawChatRequest({ id: "a", conversation: "conv", text: "t" })).toEqual(
      openclawChatRequest({ id: "b", conversation: "conv", text: "t" }),
    );
  });
});

describe("parseOpenClawCompletion", () => {
  it.each([
    ["not json", /not JSON/],
    [JSON.stringify({ choices: [{ message: { content: null } }] }), /no text reply/],
    [JSON.stringify({ object: "list" }), /expected a chat.completion/],
  ])("%s is unusable", (body, problem) => {
    const r = parseOpenClawCompletion(body);
    expect(r.ok).toBe(false);
    expect(r.ok ? "" : r.problem).toMatch(problem);
  });

  it("keeps usage and finish reason as details", () => {
    const r = parseOpenClawCompletion(
      JSON.stringify({
        id: "chatcmpl_1",
        choices: [{ message: { content: "hi" }, finish_reason: "stop" }],
        usage: { total_tokens: 3 },
      }),
    );
    expect(r).toEqual({
      ok: true,
      result: {
        reply: "hi",
        details: { finishReason: "stop", completionId: "chatcmpl_1", usage: { total_tokens: 3 } },
      },
    });
  });
});

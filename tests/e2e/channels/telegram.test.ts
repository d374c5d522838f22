import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { channelsCli } from "../../support/channels-cli";
import { type ClawrunServer, startClawrun } from "../../support/clawrun-server";
import { waitFor } from "../../support/free-port";
import { eventsOf, instanceStatus } from "../../support/messages";
import { printOutputOnFailure } from "../../support/output-on-failure";
import { type FakeTelegram, startFakeTelegram, textUpdate } from "../../support/platforms/telegram";

/**
 * Telegram end to end against the production server (local provider, real sidecar, echo
 * agent): ClawRun registers its webhook with the fake Bot API, which then delivers updates
 * exactly as Telegram does (secret header, retries of the same update_id) and records the
 * typing indicator and the replies.
 */
let server: ClawrunServer;
printOutputOnFailure("the ClawRun server", () => server?.output());
let fake: FakeTelegram;

beforeAll(async () => {
  // Telegram itself only accepts https webhooks; the local server speaks http.
  fake = await startFakeTelegram({ allowHttpWebhook: true });
  server = await startClawrun({
    config: { sandbox: { activeDuration: 120 }, channels: { telegram: { apiBaseUrl: fake.url } } },
    timings: { heartbeatIntervalMs: 500 },
    env: { TELEGRAM_BOT_TOKEN: fake.token },
  });
});
afterAll(async () => {
  await server?.stop();
  await fake?.stop();
});

const countOf = (text: string) => Number(/message #(\d+)/.exec(text)?.[1]);
const repliesTo = (chatId: number) =>
  fake.calls.filter(
    (c) => c.method === "sendMessage" && c.params.chat_id === chatId && !c.viaWebhookAnswer,
  );
/** Puts the agent to sleep now (operator stop), so no idle timer can fire in the middle of a test. */
async function sleepNow(): Promise<void> {
  const res = await fetch(`${server.url}/api/sandbox/stop`, {
    method: "POST",
    headers: { authorization: `Bearer ${server.secrets.admin}` },
  });
  expect(res.status).toBe(202);
  await waitFor(
    "status sleeping",
    async () => (await instanceStatus(server)) === "sleeping",
    60_000,
    100,
  );
}

describe("Telegram (end to end)", () => {
  it("registers the webhook: setWebhook with the secret_token and only message updates", async () => {
    const before = await channelsCli(server, ["status", "telegram"]);
    expect(before.stdout).toContain("telegram: webhook NOT registered");
    const r = await channelsCli(server, ["register", "telegram"]);
    expect(r, r.stderr).toMatchObject({ code: 0 });
    expect(r.stdout).toContain(
      `telegram: registered: Telegram sends updates to ${server.url}/api/webhooks/telegram`,
    );
    expect(fake.webhook).toMatchObject({
      url: `${server.url}/api/webhooks/telegram`,
      allowed_updates: ["message"],
    });
    expect((await channelsCli(server, ["status", "telegram"])).stdout).toContain(
      "telegram: webhook registered",
    );
  });

  it("acknowledges a message to the sleeping agent at once, shows typing, then answers in the same topic", async () => {
    expect(await instanceStatus(server)).not.toBe("running");
    const res = await fake.deliver(
      textUpdate({ updateId: 5001, chatId: -100501, threadId: 7, messageId: 88, text: "hello" }),
    );
    expect(res).toEqual({ status: 200, body: { status: "queued" } });
    expect(repliesTo(-100501)).toEqual([]); // acknowledged before the agent answered
    await waitFor("the reply", async () => repliesTo(-100501)[0], 60_000, 100);
    const reply = repliesTo(-100501)[0];
    expect(reply?.params).toMatchObject({
      chat_id: -100501,
      message_thread_id: 7,
      reply_parameters: { message_id: 88, allow_sending_without_reply: true },
    });
    expect(String(reply?.params.text)).toMatch(/^echo: hello \(message #1 in "telegram:-100501:7"/);
    const typing = fake.calls.findIndex(
      (c) =>
        c.method === "sendChatAction" &&
        c.params.chat_id === -100501 &&
        c.params.message_thread_id === 7,
    );
    expect(typing).toBeGreaterThanOrEqual(0);
    expect(typing).toBeLessThan(fake.calls.indexOf(reply as (typeof fake.calls)[number]));
    expect(fake.calls[typing]?.params.action).toBe("typing");
  });

  it("delivers a platform retry of the same update once", async () => {
    const update = textUpdate({ updateId: 5002, chatId: 502, text: "once" });
    expect((await fake.deliver(update)).status).toBe(200);
    expect(await fake.deliver(update)).toEqual({ status: 200, body: { status: "duplicate" } });
    await waitFor("the reply", async () => repliesTo(502)[0], 60_000, 100);
    expect((await fake.deliver(update)).body).toEqual({ status: "duplicate" });
    await new Promise((r) => setTimeout(r, 1_500));
    expect(repliesTo(502).map((c) => countOf(String(c.params.text)))).toEqual([1]);
  });

  it("wakes once for a burst of 20 messages across two chats and answers each in order", async () => {
    await sleepNow();
    const creatingBefore = (await eventsOf(server, "status.creating")).length;
    const chats = [601, 602];
    await Promise.all(
      chats.map(async (chatId, c) => {
        for (let i = 1; i <= 10; i++) {
          const res = await fake.deliver(
            textUpdate({ updateId: 6000 + c * 100 + i, chatId, text: `m${i}` }),
          );
          expect(res.status).toBe(200);
        }
      }),
    );
    await waitFor(
      "20 replies",
      async () => chats.every((id) => repliesTo(id).length >= 10),
      90_000,
      200,
    );
    expect((await eventsOf(server, "status.creating")).length - creatingBefore).toBe(1);
    for (const chatId of chats) {
      const texts = repliesTo(chatId).map((c) => String(c.params.text));
      expect(texts.map(countOf)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
      expect(texts.map((t) => /^echo: (m\d+)/.exec(t)?.[1])).toEqual(
        Array.from({ length: 10 }, (_, i) => `m${i + 1}`),
      );
    }
  });

  it("waits as long as Telegram's 429 asks and then sends the reply once, in order", async () => {
    const chatId = 801;
    // Wake the agent first so the only wait is the platform's.
    expect(
      (await fake.deliver(textUpdate({ updateId: 8001, chatId, text: "before" }))).status,
    ).toBe(200);
    await waitFor("the first reply", async () => repliesTo(chatId)[0], 60_000, 100);
    fake.fail(
      "sendMessage",
      {
        error_code: 429,
        description: "Too Many Requests: retry after 8",
        parameters: { retry_after: 8 },
      },
      { times: 1 },
    );
    const sentAt = Date.now();
    expect(
      (await fake.deliver(textUpdate({ updateId: 8002, chatId, text: "slow down" }))).status,
    ).toBe(200);
    expect((await fake.deliver(textUpdate({ updateId: 8003, chatId, text: "after" }))).status).toBe(
      200,
    );
    await waitFor("both replies", async () => repliesTo(chatId).length >= 4, 60_000, 100);
    const replies = repliesTo(chatId);
    // One refused attempt, then the two replies in order, none before the asked-for 8 s.
    const texts = replies
      .slice(1)
      .map((c) => /^echo: ([a-z ]+) \(/.exec(String(c.params.text))?.[1]);
    expect(texts).toEqual(["slow down", "slow down", "after"]);
    expect((replies[2]?.at ?? 0) - sentAt).toBeGreaterThanOrEqual(8_000);
    const deferred = await eventsOf(server, "reply.deferred");
    expect(deferred.some((e) => e.details.messageId === "telegram:8002")).toBe(true);
    expect(await eventsOf(server, "reply.dead-letter")).toEqual([]);
  });

  it("answers a forged update 401 and stores nothing", async () => {
    const res = await fetch(`${server.url}/api/webhooks/telegram`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-telegram-bot-api-secret-token": "forged-secret-token-value",
      },
      body: JSON.stringify(textUpdate({ updateId: 7001, chatId: 701, text: "forged" })),
    });
    expect(res.status).toBe(401);
    await new Promise((r) => setTimeout(r, 500));
    expect(repliesTo(701)).toEqual([]);
  });
});

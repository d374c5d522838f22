import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { channelDeps } from "../../../../tests/support/platforms/channel-deps";
import { sendError } from "../../../../tests/support/platforms/send-error";
import { type FakeTelegram, startFakeTelegram } from "../../../../tests/support/platforms/telegram";
import type { Channel, ReplyTarget } from "../types";
import { telegramChannel } from ".";
import { TelegramApi } from "./telegram-api";
import { TelegramChannel } from "./telegram-channel";

let fake: FakeTelegram;
let deps: ReturnType<typeof channelDeps<Parameters<typeof telegramChannel.create>[1]["env"]>>;
let channel: Channel;

const config = (over: Record<string, unknown> = {}) =>
  telegramChannel.configSchema.parse({ apiBaseUrl: fake.url, ...over });
const target = (id: string, chatId = 42, extra: Record<string, unknown> = {}): ReplyTarget => ({
  messageId: `telegram:${id}`,
  conversation: `telegram:${chatId}`,
  meta: { chatId, replyTo: 7, ...extra },
});
const signal = () => AbortSignal.timeout(20_000);
const texts = (chatId: number) =>
  fake
    .callsTo("sendMessage")
    .filter((c) => c.params.chat_id === chatId)
    .map((c) => String(c.params.text));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  fake = await startFakeTelegram();
  deps = channelDeps("telegram", {
    TELEGRAM_BOT_TOKEN: fake.token,
    TELEGRAM_WEBHOOK_SECRET: undefined,
    CLAWRUN_WEBHOOK_SECRET: "clawrun-webhook-secret-for-tests",
  });
  channel = telegramChannel.create(config(), deps.deps);
});
afterAll(async () => {
  await fake?.stop();
  await deps?.close();
});
afterEach(() => {
  fake.calls.length = 0;
});

describe("Telegram replies", () => {
  it("splits a long reply at 4,096 characters on line/word boundaries, in order, answering the message once", async () => {
    const paragraph = (n: number) => `${"lorem ipsum ".repeat(300).trim()} ${n}`;
    const reply = [1, 2, 3].map(paragraph).join("\n");
    const result = await channel.send(target("1", 101, { threadId: 9 }), reply, signal());
    expect(result).toEqual({ sent: true, detail: "sent 3 messages to Telegram chat 101" });
    const calls = fake.callsTo("sendMessage");
    expect(calls.map((c) => String(c.params.text))).toEqual([1, 2, 3].map(paragraph));
    expect(calls.map((c) => c.params.message_thread_id)).toEqual([9, 9, 9]);
    expect(calls[0]?.params.reply_parameters).toEqual({
      message_id: 7,
      allow_sending_without_reply: true,
    });
    expect(calls.slice(1).map((c) => c.params.reply_parameters)).toEqual([undefined, undefined]);
  });

  it("waits out a short flood-control retry_after and sends in order", async () => {
    fake.fail("sendMessage", {
      error_code: 429,
      description: "Too Many Requests: retry after 1",
      parameters: { retry_after: 1 },
    });
    const t0 = Date.now();
    await channel.send(target("2", 102), "hello", signal());
    expect(Date.now() - t0).toBeGreaterThanOrEqual(1000);
    expect(texts(102)).toEqual(["hello", "hello"]); // the refused attempt, then the one that went out
  });

  it("throws a long retry_after to the inbox and resumes after the parts already sent", async () => {
    const reply = ["a", "b", "c"].map((ch) => ch.repeat(4000)).join("\n");
    const flood = {
      error_code: 429,
      description: "Too Many Requests: retry after 30",
      parameters: { retry_after: 30 },
    };
    fake.fail("sendMessage", flood, { after: 1 });
    const err = await sendError(channel.send(target("3", 103), reply, signal()));
    expect(err).toMatchObject({ retryAfterMs: 30_000, permanent: false });
    const short = () => texts(103).map((t) => `${t[0]}${t.length}`);
    expect(short()).toEqual(["a4000", "b4000"]); // a went out, b was refused
    // The inbox retries the same reply later: only what is missing goes out.
    await channel.send(target("3", 103), reply, signal());
    expect(short()).toEqual(["a4000", "b4000", "b4000", "c4000"]);
    // Once complete, the progress is forgotten.
    expect(await deps.store.kv.get("channel:telegram:reply:telegram:3")).toBeNull();
  });

  it.each([
    [403, "Forbidden: bot was blocked by the user", true],
    [400, "Bad Request: chat not found", true],
    [401, "Unauthorized", true],
    [500, "Internal Server Error", false],
    [502, "Bad Gateway", false],
  ])("classifies %i %s as permanent=%s", async (code, description, permanent) => {
    fake.fail("sendMessage", { error_code: code, description });
    const err = await sendError(channel.send(target(`p${code}`, 104), "x", signal()));
    expect(err).toMatchObject({ permanent, retryAfterMs: null });
    expect(err.message).toContain(description);
  });

  it("follows a group's migration to a supergroup", async () => {
    fake.fail("sendMessage", {
      error_code: 400,
      description: "Bad Request: group chat was upgraded to a supergroup chat",
      parameters: { migrate_to_chat_id: -100777 },
    });
    const result = await channel.send(target("m", -5), "moved?", signal());
    expect(result.detail).toBe("sent 1 message to Telegram chat -100777");
    expect(texts(-100777)).toEqual(["moved?"]);
  });

  it("sends nothing for an empty reply", async () => {
    expect(await channel.send(target("e", 105), "  \n ", signal())).toEqual({
      sent: false,
      detail: "the reply was empty; nothing sent",
    });
    expect(fake.callsTo("sendMessage")).toEqual([]);
  });

  it("refuses a stored message whose meta is not a Telegram chat, permanently", async () => {
    const err = await sendError(
      channel.send(
        { messageId: "telegram:x", conversation: "c", meta: { chat: "?" } },
        "x",
        signal(),
      ),
    );
    expect(err.permanent).toBe(true);
  });
});

describe("Telegram typing indicator while the agent wakes", () => {
  it("repeats sendChatAction typing per chat until the replies are sent, one indicator per chat", async () => {
    // Repeat every 50 ms instead of 4 s so the test is short.
    const fast = new TelegramChannel({
      api: new TelegramApi({ baseUrl: fake.url, token: fake.token }),
      secretToken: "unused-in-this-test",
      webhookUrl: "https://clawrun.example/api/webhooks/telegram",
      attachments: "describe",
      kv: deps.deps.kv,
      clock: Date.now,
      logger: deps.deps.logger,
      typingEveryMs: 50,
    });
    const a1 = fast.whileWaking?.(target("w1", 201));
    const a2 = fast.whileWaking?.(target("w2", 201));
    const b = fast.whileWaking?.(target("w3", 202, { threadId: 4 }));
    await sleep(400);
    const typing = (chat: number) =>
      fake.callsTo("sendChatAction").filter((c) => c.params.chat_id === chat);
    // One repeating indicator for chat 201, not one per message: at most one pulse per period.
    expect(typing(201).length).toBeGreaterThanOrEqual(3);
    expect(typing(201).length).toBeLessThanOrEqual(10);
    expect(typing(202)[0]?.params).toEqual({
      chat_id: 202,
      action: "typing",
      message_thread_id: 4,
    });
    // The reply to w1 is out, w2 still waits: chat 201 keeps typing.
    await fast.send(target("w1", 201), "first", signal());
    const before = typing(201).length;
    await sleep(200);
    expect(typing(201).length).toBeGreaterThan(before);
    await a2?.stop();
    await a1?.stop();
    await b?.stop();
    const stopped = fake.callsTo("sendChatAction").length;
    await sleep(200);
    expect(fake.callsTo("sendChatAction").length).toBe(stopped);
  });
});

describe("Telegram webhook registration and status", () => {
  it("registers the webhook with the secret_token and only message updates, and reports it", async () => {
    const local = await startFakeTelegram({ allowHttpWebhook: true, token: fake.token });
    try {
      const ch = telegramChannel.create(config({ apiBaseUrl: local.url }), deps.deps);
      expect((await ch.status(signal())).webhookRegistered).toBe(false);
      expect(await ch.register?.(signal())).toEqual({
        ok: true,
        detail: "Telegram sends updates to https://clawrun.example/api/webhooks/telegram",
      });
      expect(local.webhook).toEqual({
        url: "https://clawrun.example/api/webhooks/telegram",
        secret_token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
        allowed_updates: ["message"],
      });
      expect(await ch.status(signal())).toMatchObject({
        missingEnv: [],
        webhookRegistered: true,
        webhookUrl: "https://clawrun.example/api/webhooks/telegram",
      });
    } finally {
      await local.stop();
    }
  });

  it("passes Telegram's refusal through (an http URL is refused by the real Bot API)", async () => {
    const { deps: httpDeps, close } = channelDeps(
      "telegram",
      deps.deps.env,
      "http://127.0.0.1:3000",
    );
    try {
      const ch = telegramChannel.create(config(), httpDeps);
      const r = await ch.register?.(signal());
      expect(r?.ok).toBe(false);
      expect(r?.detail).toContain("An HTTPS URL must be provided for webhook");
    } finally {
      await close();
    }
  });
});

describe("Telegram attachments in refuse mode", () => {
  it("answers the webhook with a sendMessage refusal (no extra call) and stores nothing", async () => {
    const refusing = telegramChannel.create(config({ attachments: "refuse" }), {
      ...deps.deps,
      env: { ...deps.deps.env, TELEGRAM_WEBHOOK_SECRET: "a-secret-token-of-16-plus" },
    });
    const update = {
      update_id: 900,
      message: {
        message_id: 31,
        chat: { id: 77, type: "private" },
        from: { id: 77, is_bot: false },
        date: 1,
        voice: { duration: 4 },
      },
    };
    const inbound = await refusing.handle({
      method: "POST",
      url: new URL("https://clawrun.example/api/webhooks/telegram"),
      headers: new Headers({ "x-telegram-bot-api-secret-token": "a-secret-token-of-16-plus" }),
      rawBody: Buffer.from(JSON.stringify(update)),
      now: Date.now(),
    });
    expect(inbound).toEqual({
      kind: "ignore",
      reason: "a voice message",
      response: {
        status: 200,
        body: {
          method: "sendMessage",
          chat_id: 77,
          reply_parameters: { message_id: 31, allow_sending_without_reply: true },
          text: "Sorry, the agent can only read text messages, so it did not get this voice message. Please send it as text.",
        },
      },
    });
  });
});

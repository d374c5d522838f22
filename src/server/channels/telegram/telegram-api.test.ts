import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../../../../tests/support/free-port";
import { type FakeTelegram, startFakeTelegram } from "../../../../tests/support/platforms/telegram";
import { TelegramApi, TelegramApiError } from "./telegram-api";

let fake: FakeTelegram;
let api: TelegramApi;
const signal = () => AbortSignal.timeout(5_000);

beforeAll(async () => {
  fake = await startFakeTelegram();
  api = new TelegramApi({ baseUrl: fake.url, token: fake.token });
});
afterAll(() => fake?.stop());

async function failure(p: Promise<unknown>): Promise<TelegramApiError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(TelegramApiError);
  return err as TelegramApiError;
}

describe("TelegramApi against the fake Bot API", () => {
  it("posts JSON to /bot<token>/<method> and returns the result", async () => {
    const sent = await api.sendMessage({ chat_id: 42, text: "hi" }, signal());
    expect(sent.message_id).toBeGreaterThan(0);
    expect(fake.callsTo("sendMessage").at(-1)?.params).toEqual({ chat_id: 42, text: "hi" });
  });

  it("reads flood control's retry_after from a 429", async () => {
    fake.fail("sendMessage", {
      error_code: 429,
      description: "Too Many Requests: retry after 7",
      parameters: { retry_after: 7 },
    });
    const err = await failure(api.sendMessage({ chat_id: 42, text: "x" }, signal()));
    expect(err).toMatchObject({ errorCode: 429, retryAfterS: 7, method: "sendMessage" });
  });

  it("reads migrate_to_chat_id when a group became a supergroup", async () => {
    fake.fail("sendMessage", {
      error_code: 400,
      description: "Bad Request: group chat was upgraded to a supergroup chat",
      parameters: { migrate_to_chat_id: -1001234 },
    });
    const err = await failure(api.sendMessage({ chat_id: -5, text: "x" }, signal()));
    expect(err.migrateToChatId).toBe(-1001234);
  });

  it("reports the platform's own refusal (text too long) with its description", async () => {
    const err = await failure(api.sendMessage({ chat_id: 1, text: "x".repeat(4097) }, signal()));
    expect(err.message).toBe("Telegram sendMessage: 400 Bad Request: message is too long");
  });

  it("reports a wrong token as 401 without putting the token in the message", async () => {
    const wrong = new TelegramApi({ baseUrl: fake.url, token: "1:wrongwrongwrongwrongwrong" });
    const err = await failure(wrong.getWebhookInfo(signal()));
    expect(err.errorCode).toBe(401);
    expect(err.message).not.toContain("wrongwrong");
  });

  it("reports an unreachable server as code 0, without the URL (it holds the token)", async () => {
    const down = new TelegramApi({
      baseUrl: `http://127.0.0.1:${await freePort()}`,
      token: fake.token,
    });
    const err = await failure(down.sendChatAction({ chat_id: 1, action: "typing" }, signal()));
    expect(err.errorCode).toBe(0);
    expect(err.message).not.toContain(fake.token);
  });

  it("sets and reads the webhook", async () => {
    const https = new TelegramApi({ baseUrl: fake.url, token: fake.token });
    await https.setWebhook(
      {
        url: "https://bot.example/api/webhooks/telegram",
        secret_token: "abc_DEF-123",
        allowed_updates: ["message"],
      },
      signal(),
    );
    expect(await https.getWebhookInfo(signal())).toMatchObject({
      url: "https://bot.example/api/webhooks/telegram",
      pending_update_count: 0,
      allowed_updates: ["message"],
    });
  });
});

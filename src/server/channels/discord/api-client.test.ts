import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  APPLICATION_ID,
  type FakeDiscord,
  startFakeDiscord,
} from "../../../../tests/support/platforms/discord";
import { ChannelSendError } from "../types";
import { DiscordApi, UNKNOWN_WEBHOOK } from "./api-client";
import { ASK_COMMAND } from "./ask-command";

let discord: FakeDiscord;
let api: DiscordApi;
const signal = () => AbortSignal.timeout(5_000);

beforeAll(async () => {
  discord = await startFakeDiscord();
  api = new DiscordApi({
    baseUrl: discord.apiBaseUrl,
    applicationId: APPLICATION_ID,
    botToken: discord.botToken,
  });
});
afterAll(() => discord?.stop());

/** An interaction Discord sent and ClawRun deferred (as the webhook would have answered). */
function deferred() {
  const i = discord.ask({ channelId: "100", userId: "200", text: "hi" });
  const issued = discord.interactions.find((x) => x.id === i.id);
  if (issued) issued.response = { status: 200, body: { type: 5 }, at: Date.now() };
  return i;
}

describe("DiscordApi against a Discord stand-in", () => {
  it("edits the original response through the interaction webhook, without the bot token, with no pings", async () => {
    const i = deferred();
    expect(await api.editOriginal(i.token, "answer", signal())).toMatchObject({ ok: true });
    const call = discord.calls.at(-1);
    expect(call).toMatchObject({
      method: "PATCH",
      path: `/api/v10/webhooks/${APPLICATION_ID}/${i.token}/messages/@original`,
      body: { content: "answer", allowed_mentions: { parse: [] } },
    });
    expect(call?.headers.authorization).toBeUndefined();
    expect(call?.headers["user-agent"]).toMatch(/^DiscordBot \(/);
    expect(discord.interactions.find((x) => x.id === i.id)?.original?.content).toBe("answer");
  });

  it("posts follow-ups (ephemeral when asked)", async () => {
    const i = deferred();
    expect(await api.followUp(i.token, "more", 64, signal())).toMatchObject({ ok: true });
    expect(discord.calls.at(-1)).toMatchObject({
      method: "POST",
      path: `/api/v10/webhooks/${APPLICATION_ID}/${i.token}?wait=true`,
    });
    expect(discord.interactions.find((x) => x.id === i.id)?.followUps).toEqual([
      { content: "more", flags: 64, at: expect.any(Number) },
    ]);
  });

  it("reports an expired interaction token as Unknown Webhook (10015)", async () => {
    const i = deferred();
    discord.advance(16 * 60_000);
    try {
      expect(await api.editOriginal(i.token, "late", signal())).toEqual({
        ok: false,
        status: 404,
        code: UNKNOWN_WEBHOOK,
      });
    } finally {
      discord.advance(-16 * 60_000);
    }
  });

  it("posts in a channel with the bot token; Missing Access comes back as a result", async () => {
    discord.botChannels.add("300");
    expect(await api.createMessage("300", "hello", signal())).toMatchObject({ ok: true });
    expect(discord.calls.at(-1)?.headers.authorization).toBe(`Bot ${discord.botToken}`);
    expect(await api.createMessage("301", "hello", signal())).toEqual({
      ok: false,
      status: 403,
      code: 50001,
    });
  });

  it("429 → a retryable error carrying retry_after in milliseconds", async () => {
    discord.rateLimit(1, 1.5);
    const err = await api.editOriginal(deferred().token, "x", signal()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ChannelSendError);
    expect(err).toMatchObject({ retryAfterMs: 1500, permanent: false });
  });

  it("registers /ask (again = update) and reads the application", async () => {
    expect(await api.upsertCommand(ASK_COMMAND, signal())).toMatchObject({ ok: true });
    expect(await api.upsertCommand(ASK_COMMAND, signal())).toMatchObject({ ok: true });
    expect(discord.commands.map((c) => c.name)).toEqual(["ask"]);
    expect(await api.listCommands(signal())).toMatchObject({ ok: true, value: [{ name: "ask" }] });
    expect(await api.getApplication(signal())).toMatchObject({
      ok: true,
      value: { id: APPLICATION_ID, interactions_endpoint_url: null },
    });
  });

  it("a wrong bot token is refused (401) without the token in any message", async () => {
    const wrong = new DiscordApi({
      baseUrl: discord.apiBaseUrl,
      applicationId: APPLICATION_ID,
      botToken: "not-the-token-000000",
    });
    expect(await wrong.getApplication(signal())).toEqual({ ok: false, status: 401, code: 0 });
  });

  it("an unreachable Discord is a retryable error that does not show the token-bearing URL", async () => {
    const down = new DiscordApi({
      baseUrl: "http://127.0.0.1:9/api/v10",
      applicationId: APPLICATION_ID,
      botToken: discord.botToken,
    });
    const err = await down.editOriginal("secret-token", "x", signal()).catch((e: unknown) => e);
    expect(err).toMatchObject({ permanent: false });
    expect((err as Error).message).not.toContain("secret-token");
  });
});

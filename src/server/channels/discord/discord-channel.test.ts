import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { channelApp } from "../../../../tests/support/channel-app";
import {
  APPLICATION_ID,
  type FakeDiscord,
  startFakeDiscord,
} from "../../../../tests/support/platforms/discord";
import { startWebhookServer } from "../../../../tests/support/webhook-server";
import { type Channel, ChannelSendError, type ReplyTarget } from "../types";

/** The Discord channel as the server builds it (composition root, real sqlite store). */
let discord: FakeDiscord;
let app: Awaited<ReturnType<typeof channelApp>>;
let channel: Channel;
let now = Date.now();
const signal = () => AbortSignal.timeout(5_000);

const config = (over: Record<string, unknown> = {}) => ({
  apiBaseUrl: discord.apiBaseUrl,
  applicationId: APPLICATION_ID,
  publicKey: discord.publicKeyHex,
  ...over,
});

beforeAll(async () => {
  discord = await startFakeDiscord();
  app = await channelApp({
    name: "discord",
    config: config(),
    env: { DISCORD_BOT_TOKEN: discord.botToken },
    clock: () => now,
  });
  channel = app.channel;
});
afterAll(async () => {
  await app?.close();
  await discord?.stop();
});

/** A /ask that Discord sent and ClawRun acknowledged with a deferred response; its reply target. */
async function asked(on: Channel = channel): Promise<{ to: ReplyTarget; id: string }> {
  now = Date.now();
  const i = discord.ask({ channelId: "500", userId: "600", text: "question" });
  const req = {
    method: "POST" as const,
    url: new URL("http://127.0.0.1/api/webhooks/discord"),
    now,
  };
  const body = JSON.stringify(i);
  const inbound = await on.handle({
    ...req,
    headers: new Headers(discord.signed(body)),
    rawBody: Buffer.from(body),
  });
  if (inbound.kind !== "message") throw new Error(`expected a message, got ${inbound.kind}`);
  const ack = on.acknowledge({ kind: "queued", id: i.id });
  const issued = discord.interactions.find((x) => x.id === i.id);
  if (issued) issued.response = { status: ack.status, body: ack.body, at: Date.now() };
  const m = inbound.message;
  return { to: { messageId: m.id, conversation: m.conversation, meta: m.meta }, id: i.id };
}
const issued = (id: string) => discord.interactions.find((x) => x.id === id);

describe("DiscordChannel acknowledgement and send", () => {
  it("acknowledges with a deferred response, then the reply replaces it", async () => {
    const { to, id } = await asked();
    expect(issued(id)?.response?.body).toEqual({ type: 5 });
    const r = await channel.send(to, "the answer", signal());
    expect(r).toMatchObject({ sent: true, detail: "1 message(s) as the answer to /ask" });
    expect(issued(id)).toMatchObject({ original: { content: "the answer" }, followUps: [] });
  });

  it("splits a long reply: the first 2,000 characters replace the response, the rest follow up", async () => {
    const { to, id } = await asked();
    const words = Array.from({ length: 1000 }, (_, i) => `w${i}`).join(" ");
    await channel.send(to, words, signal());
    const got = issued(id);
    const pieces = [got?.original?.content ?? "", ...(got?.followUps.map((f) => f.content) ?? [])];
    expect(pieces.length).toBe(3);
    for (const p of pieces) expect(p.length).toBeLessThanOrEqual(2000);
    expect(pieces.join(" ")).toBe(words);
  });

  it("after a 429 part-way, the retry resumes with the next piece", async () => {
    const { to, id } = await asked();
    const text = ["A".repeat(1500), "B".repeat(1500), "C".repeat(1500)].join("\n");
    discord.rateLimit(1, 0.25);
    const first = await channel.send(to, text, signal()).catch((e: unknown) => e);
    expect(first).toBeInstanceOf(ChannelSendError);
    expect(first).toMatchObject({ retryAfterMs: 250, permanent: false });
    expect(issued(id)?.original).toBeNull();
    await channel.send(to, text, signal());
    expect(issued(id)?.original?.content[0]).toBe("A");
    expect(issued(id)?.followUps.map((f) => f.content[0])).toEqual(["B", "C"]);
  });

  it("after the 15-minute token expired, posts in the channel with the bot token", async () => {
    const { to, id } = await asked();
    discord.botChannels.add("500");
    const later = Date.now() + 16 * 60_000;
    now = later;
    discord.advance(16 * 60_000);
    try {
      const r = await channel.send(to, "late answer", signal());
      expect(r.detail).toContain("in channel 500 (the interaction token had expired)");
    } finally {
      discord.advance(-16 * 60_000);
    }
    expect(discord.channelMessages.at(-1)).toMatchObject({
      channelId: "500",
      content: "late answer",
    });
    expect(issued(id)?.original).toBeNull();
  });

  it("falls back to the channel when Discord no longer knows the token, even before 15 minutes", async () => {
    const { to } = await asked();
    discord.botChannels.add("500");
    const t = discord.interactions.find((x) => x.token === to.meta.token);
    if (t) t.token = "revoked";
    await channel.send(to, "still delivered", signal());
    expect(discord.channelMessages.at(-1)?.content).toBe("still delivered");
  });

  it("an edit that gets to Discord before the deferred response is retried, not dead-lettered", async () => {
    const { to, id } = await asked();
    const got = issued(id);
    const response = got?.response ?? null;
    if (got) got.response = null; // Discord has not registered the deferred response yet
    const err = await channel.send(to, "fast answer", signal()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ChannelSendError);
    expect(err).toMatchObject({ permanent: false, retryAfterMs: null });
    expect((err as Error).message).toContain("code 10008");
    if (got) got.response = response;
    await channel.send(to, "fast answer", signal());
    expect(issued(id)?.original?.content).toBe("fast answer");
    expect(discord.channelMessages.map((m) => m.content)).not.toContain("fast answer");
  });

  it("an @original Discord still does not know a minute later was deleted: the reply goes to the channel", async () => {
    const { to, id } = await asked();
    discord.botChannels.add("500");
    const got = issued(id);
    if (got) got.response = null;
    now = Date.now() + 61_000;
    const r = await channel.send(to, "answer after all", signal());
    expect(r.detail).toContain("in channel 500");
    expect(discord.channelMessages.at(-1)?.content).toBe("answer after all");
  });

  it("a channel the bot cannot post in is a permanent failure", async () => {
    const { to } = await asked();
    discord.botChannels.delete("500");
    now = Date.now() + 16 * 60_000;
    const err = await channel.send(to, "nowhere", signal()).catch((e: unknown) => e);
    expect(err).toMatchObject({
      permanent: true,
      message: "Discord create message: HTTP 403 (code 50001)",
    });
  });

  it("ephemeral: acknowledged privately, and never falls back to a public channel message", async () => {
    const priv = await channelApp({
      name: "discord",
      config: config({ ephemeral: true }),
      env: { DISCORD_BOT_TOKEN: discord.botToken },
      clock: () => now,
    });
    try {
      const { to, id } = await asked(priv.channel);
      expect(issued(id)?.response?.body).toEqual({ type: 5, data: { flags: 64 } });
      await priv.channel.send(to, `${"x".repeat(1999)} y`, signal());
      expect(issued(id)?.followUps).toEqual([{ content: "y", flags: 64, at: expect.any(Number) }]);
      discord.botChannels.add("500");
      now = Date.now() + 16 * 60_000;
      const err = await priv.channel.send(to, "late", signal()).catch((e: unknown) => e);
      expect(err).toMatchObject({ permanent: true });
      expect(discord.channelMessages.map((m) => m.content)).not.toContain("late");
    } finally {
      await priv.close();
    }
  });
});

describe("DiscordChannel register and status", () => {
  it("registers /ask and the interactions endpoint, which Discord verifies against the real handler", async () => {
    let ctx: Awaited<ReturnType<typeof channelApp>>["ctx"] | undefined;
    const server = await startWebhookServer(() => {
      if (!ctx) throw new Error("not ready");
      return ctx;
    });
    const live = await channelApp({
      name: "discord",
      config: config(),
      env: { DISCORD_BOT_TOKEN: discord.botToken },
      publicUrl: server.url,
    });
    ctx = live.ctx;
    try {
      const before = await live.channel.status(signal());
      expect(before).toMatchObject({
        webhookRegistered: false,
        webhookUrl: `${server.url}/api/webhooks/discord`,
      });
      expect(await live.channel.register?.(signal())).toEqual({
        ok: true,
        detail: `/ask registered; Discord sends interactions to ${server.url}/api/webhooks/discord`,
      });
      expect(discord.application.interactions_endpoint_url).toBe(
        `${server.url}/api/webhooks/discord`,
      );
      expect(discord.commands.find((c) => c.name === "ask")?.body).toMatchObject({
        name: "ask",
        options: [{ name: "message", required: true }, { name: "file" }],
      });
      const after = await live.channel.status(signal());
      expect(after).toMatchObject({
        webhookRegistered: true,
        detail: "interactions come here; /ask is registered",
      });
    } finally {
      await live.close();
      await server.stop();
    }
  });

  it("reports why registering failed when Discord cannot verify the endpoint", async () => {
    const r = await channel.register?.(signal()); // its public URL is http://127.0.0.1:9: nothing answers
    expect(r?.ok).toBe(false);
    expect(r?.detail).toContain(
      "setting the Interactions Endpoint URL failed: HTTP 400 (Discord code 50035)",
    );
    expect(r?.detail).toContain("must be reachable from the internet");
  });

  it("names a bot token that Discord refuses", async () => {
    const wrong = await channelApp({
      name: "discord",
      config: config(),
      env: { DISCORD_BOT_TOKEN: "not-the-bot-token-000" },
    });
    try {
      expect(await wrong.channel.status(signal())).toMatchObject({
        webhookRegistered: null,
        detail:
          "reading the application (is DISCORD_BOT_TOKEN right?) failed: HTTP 401 (Discord code 0)",
      });
    } finally {
      await wrong.close();
    }
  });
});

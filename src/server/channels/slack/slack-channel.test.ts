import { rmSync } from "node:fs";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { channelApp } from "../../../../tests/support/channel-app";
import {
  directMessage,
  envelope,
  type FakeSlack,
  fileShare,
  startFakeSlack,
} from "../../../../tests/support/platforms/slack";
import { type Channel, type ChannelRequest, ChannelSendError, type ReplyTarget } from "../types";

/** The Slack channel as the server builds it (composition root, real sqlite store). */
const token = "xoxb-test-token-0002";
const signingSecret = "0123456789abcdef0123456789abcdef";
let slack: FakeSlack;
let app: Awaited<ReturnType<typeof channelApp>>;
let channel: Channel;

beforeAll(async () => {
  slack = await startFakeSlack({ token, signingSecret });
  app = await channelApp({
    name: "slack",
    config: { apiBaseUrl: slack.apiBaseUrl, wakingNotice: "waking up…" },
    env: { SLACK_BOT_TOKEN: token, SLACK_SIGNING_SECRET: signingSecret },
  });
  channel = app.channel;
});
afterAll(async () => {
  await app?.close();
  await slack?.stop();
});
afterEach(() => {
  slack.messages.length = 0;
  slack.calls.length = 0;
});

let n = 0;
const target = (meta: Record<string, unknown>): ReplyTarget => {
  n += 1;
  return { messageId: `Ev${n}`, conversation: `slack:${meta.channel}:${n}`, meta };
};
const signal = () => AbortSignal.timeout(5_000);
const request = (payload: unknown): ChannelRequest => {
  const req = slack.signedRequest(payload);
  return {
    method: "POST",
    url: new URL("http://127.0.0.1/api/webhooks/slack"),
    headers: new Headers(req.headers),
    rawBody: Buffer.from(req.body),
    now: Date.now(),
  };
};

describe("SlackChannel.send", () => {
  it("posts a short reply in the thread, with Slack's markup characters escaped", async () => {
    const to = target({ channel: "C0GENERAL", threadTs: "1.000100" });
    const r = await channel.send(to, "a <b> & c", signal());
    expect(r.sent).toBe(true);
    expect(slack.messages).toEqual([
      {
        channel: "C0GENERAL",
        ts: expect.any(String),
        threadTs: "1.000100",
        text: "a &lt;b&gt; &amp; c",
        history: ["a &lt;b&gt; &amp; c"],
      },
    ]);
  });

  it("splits a long reply into messages of at most 4,000 characters, in order", async () => {
    const lines = Array.from({ length: 300 }, (_, i) => `line ${i} ${"x".repeat(20)}`);
    await channel.send(target({ channel: "D0DM", threadTs: null }), lines.join("\n"), signal());
    expect(slack.messages.length).toBe(3);
    for (const m of slack.messages) {
      expect(m.text.length).toBeLessThanOrEqual(4000);
      expect(m.threadTs).toBeNull();
    }
    expect(slack.messages.map((m) => m.text).join("\n")).toBe(lines.join("\n"));
  });

  it("after a 429 part-way, the retry resumes with the next piece (nothing posted twice)", async () => {
    const to = target({ channel: "D0DM", threadTs: null });
    const text = ["A".repeat(3000), "B".repeat(3000), "C".repeat(3000)].join("\n");
    slack.rateLimit(1, 2, 1); // the second post is refused
    const err = await channel.send(to, text, signal()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ChannelSendError);
    expect(err).toMatchObject({ retryAfterMs: 2000, permanent: false });
    expect(slack.messages.map((m) => m.text[0])).toEqual(["A"]);
    await channel.send(to, text, signal());
    expect(slack.messages.map((m) => m.text[0])).toEqual(["A", "B", "C"]);
  });

  it("says so when the agent's reply is empty (Slack refuses empty messages)", async () => {
    await channel.send(target({ channel: "D0DM", threadTs: null }), "  ", signal());
    expect(slack.messages.map((m) => m.text)).toEqual(["(the agent replied with no text)"]);
  });

  it("refuses, permanently, a stored message without Slack reply details", async () => {
    const err = await channel.send(target({ chat: "x" }), "hi", signal()).catch((e: unknown) => e);
    expect(err).toMatchObject({ permanent: true });
    expect(slack.calls).toEqual([]);
  });
});

describe("SlackChannel waking notice", () => {
  it("posts a notice while the agent wakes, then the reply replaces it", async () => {
    const to = target({ channel: "C0GENERAL", threadTs: "2.000200" });
    const waiting = channel.whileWaking?.(to, { waking: true });
    await channel.send(to, "the answer", signal());
    await waiting?.stop();
    expect(slack.messages).toEqual([
      {
        channel: "C0GENERAL",
        ts: expect.any(String),
        threadTs: "2.000200",
        text: "the answer",
        history: ["waking up…", "the answer"],
      },
    ]);
    expect(slack.calls.map((c) => c.path)).toEqual(["/api/chat.postMessage", "/api/chat.update"]);
  });

  it("posts nothing when the agent is already running", async () => {
    const to = target({ channel: "D0DM", threadTs: null });
    await channel.whileWaking?.(to, { waking: false }).stop();
    expect(slack.calls).toEqual([]);
  });

  it("shows one notice per conversation while it wakes", async () => {
    const first = target({ channel: "D0DM", threadTs: null });
    const second = {
      ...target({ channel: "D0DM", threadTs: null }),
      conversation: first.conversation,
    };
    const a = channel.whileWaking?.(first, { waking: true });
    const b = channel.whileWaking?.(second, { waking: true });
    await channel.send(first, "one", signal());
    await channel.send(second, "two", signal());
    await Promise.all([a?.stop(), b?.stop()]);
    expect(slack.messages.map((m) => m.history)).toEqual([["waking up…", "one"], ["two"]]);
  });

  it("a reply sent by another process (sharing the store) still replaces the notice", async () => {
    const to = target({ channel: "D0DM", threadTs: null });
    await channel.whileWaking?.(to, { waking: true }).stop(); // this process gives up before the reply
    const other = await channelApp({
      name: "slack",
      dir: app.dir,
      config: { apiBaseUrl: slack.apiBaseUrl, wakingNotice: "waking up…" },
      env: { SLACK_BOT_TOKEN: token, SLACK_SIGNING_SECRET: signingSecret },
    });
    try {
      await other.channel.send(to, "from elsewhere", signal());
    } finally {
      await other.close();
    }
    expect(slack.messages.map((m) => m.history)).toEqual([["waking up…", "from elsewhere"]]);
  });

  it("a 429 while replacing the notice: the retry still replaces it (no stray notice)", async () => {
    const to = target({ channel: "D0DM", threadTs: null });
    await channel.whileWaking?.(to, { waking: true }).stop();
    slack.rateLimit(1, 1);
    const err = await channel.send(to, "answer", signal()).catch((e: unknown) => e);
    expect(err).toMatchObject({ retryAfterMs: 1000 });
    await channel.send(to, "answer", signal());
    expect(slack.messages.map((m) => m.history)).toEqual([["waking up…", "answer"]]);
  });

  it("never throws for a message without Slack reply details (the wake must go on)", async () => {
    const waiting = channel.whileWaking?.(target({ chat: "x" }), { waking: true });
    await waiting?.stop();
    expect(slack.calls).toEqual([]);
  });

  it("posts the reply anyway when the notice was deleted meanwhile", async () => {
    const to = target({ channel: "D0DM", threadTs: null });
    const waiting = channel.whileWaking?.(to, { waking: true });
    await waiting?.stop();
    slack.messages.length = 0; // someone deleted the notice
    await channel.send(to, "still here", signal());
    expect(slack.messages.map((m) => m.text)).toEqual(["still here"]);
  });
});

describe("SlackChannel.handle", () => {
  it("refuses files when configured to, telling the sender in place", async () => {
    const refusing = await channelApp({
      name: "slack",
      config: { apiBaseUrl: slack.apiBaseUrl, attachments: "refuse" },
      env: { SLACK_BOT_TOKEN: token, SLACK_SIGNING_SECRET: signingSecret },
    });
    try {
      const payload = envelope(
        "EvFile",
        fileShare({
          channel: "D0DM",
          user: "U0PERSON",
          text: "",
          ts: "3.1",
          file: { name: "song.mp3", mimetype: "audio/mpeg", size: 4_000_000 },
        }),
      );
      const inbound = await refusing.channel.handle(request(payload));
      expect(inbound).toMatchObject({ kind: "ignore", response: { status: 200 } });
      if (inbound.kind !== "ignore") throw new Error("expected ignore");
      await inbound.after?.();
      expect(slack.messages).toEqual([
        expect.objectContaining({
          channel: "D0DM",
          threadTs: null,
          text: expect.stringContaining('"song.mp3" (audio/mpeg, 3.8 MB)'),
        }),
      ]);
      expect(slack.messages[0]?.text).toMatch(/^Sorry, the agent can only read text messages/);
    } finally {
      await refusing.close();
    }
  });

  it("answers GET with 405", async () => {
    const err = await channel
      .handle({ ...request({}), method: "GET", rawBody: Buffer.alloc(0) })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 405 });
  });
});

describe("SlackChannel.status", () => {
  it("tells whether Slack has called yet and whether the token works", async () => {
    const fresh = await channelApp({
      name: "slack",
      config: { apiBaseUrl: slack.apiBaseUrl },
      env: { SLACK_BOT_TOKEN: token, SLACK_SIGNING_SECRET: signingSecret },
    });
    try {
      const before = await fresh.channel.status(signal());
      expect(before).toMatchObject({
        missingEnv: [],
        webhookRegistered: false,
        webhookUrl: "http://127.0.0.1:9/api/webhooks/slack",
      });
      expect(before.detail).toContain("bot token works (clawrun in ClawRun Test)");
      expect(before.detail).toContain(
        "set Event Subscriptions → Request URL to http://127.0.0.1:9/api/webhooks/slack",
      );
      await fresh.channel.handle(
        request(
          envelope(
            "EvSeen",
            directMessage({ channel: "D0DM", user: "U0P", text: "hi", ts: "4.1" }),
          ),
        ),
      );
      const after = await fresh.channel.status(signal());
      expect(after.webhookRegistered).toBe(true);
      expect(after.detail).toContain("Slack has called");
    } finally {
      await fresh.close();
    }
  });

  it("names a bot token that Slack refuses", async () => {
    const wrong = await channelApp({
      name: "slack",
      config: { apiBaseUrl: slack.apiBaseUrl },
      env: { SLACK_BOT_TOKEN: "xoxb-not-the-token", SLACK_SIGNING_SECRET: signingSecret },
    });
    try {
      expect((await wrong.channel.status(signal())).detail).toContain(
        "SLACK_BOT_TOKEN does not work: invalid_auth",
      );
    } finally {
      await wrong.close();
      rmSync(wrong.dir, { recursive: true, force: true });
    }
  });

  it("a channel without its secrets is listed as missing them", async () => {
    const missing = await channelApp({ name: "slack", config: {}, env: {} });
    try {
      expect(await missing.channel.status(signal())).toMatchObject({
        missingEnv: ["SLACK_BOT_TOKEN", "SLACK_SIGNING_SECRET"],
      });
    } finally {
      await missing.close();
    }
  });
});

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ClawrunServer, startClawrun } from "../../support/clawrun-server";
import { waitFor } from "../../support/free-port";
import { eventsOf, instanceStatus } from "../../support/messages";
import { printOutputOnFailure } from "../../support/output-on-failure";
import {
  directMessage,
  envelope,
  type FakeSlack,
  mention,
  type SlackPostedMessage,
  startFakeSlack,
} from "../../support/platforms/slack";
import { sleepNow } from "../../support/sleep-now";

/**
 * Slack end to end against the production server (local provider, real sidecar, echo agent):
 * a stand-in for Slack sends signed Events API requests and receives the Web API calls.
 */
const token = "xoxb-e2e-token";
const signingSecret = "00112233445566778899aabbccddeeff";
const NOTICE = "Waking up…";
let server: ClawrunServer;
printOutputOnFailure("the ClawRun server", () => server?.output());
let slack: FakeSlack;
let webhook: string;

beforeAll(async () => {
  slack = await startFakeSlack({ token, signingSecret });
  server = await startClawrun({
    config: {
      sandbox: { activeDuration: 600 },
      channels: { slack: { apiBaseUrl: slack.apiBaseUrl, wakingNotice: NOTICE } },
    },
    timings: { heartbeatIntervalMs: 500 },
    env: { SLACK_BOT_TOKEN: token, SLACK_SIGNING_SECRET: signingSecret },
  });
  webhook = `${server.url}/api/webhooks/slack`;
});
afterAll(async () => {
  await server?.stop();
  await slack?.stop();
});

let tsSeq = 0;
const ts = () => `${Math.floor(Date.now() / 1000)}.${String(++tsSeq).padStart(6, "0")}`;
const countOf = (text: string) => Number(/message #(\d+)/.exec(text)?.[1]);
const replies = (channel: string) =>
  slack.messages.filter((m) => m.channel === channel && m.text.startsWith("echo: "));
const replyTo = (channel: string, words: string) =>
  replies(channel).find((m) => m.text.startsWith(`echo: ${words} (`));
const dm = (eventId: string, channel: string, text: string) =>
  envelope(eventId, directMessage({ channel, user: "U0ALICE", text, ts: ts() }));

describe("Slack end to end", () => {
  it("a DM to a sleeping agent is acknowledged at once; a waking notice appears, then the reply replaces it", async () => {
    expect(await instanceStatus(server)).not.toBe("running");
    const res = await slack.deliver(webhook, dm("EvE2E0001", "D0ALICE", "hello"));
    expect(res).toMatchObject({ status: 200, body: { ok: true } });
    expect(res.ms).toBeLessThan(5_000); // generous; the real number is in the bench
    const reply = await waitFor("the reply", async () => replyTo("D0ALICE", "hello"), 60_000, 50);
    expect(reply).toMatchObject({
      channel: "D0ALICE",
      threadTs: null,
      history: [NOTICE, reply.text],
    });
    expect(reply.text).toContain('(message #1 in "slack:D0ALICE"');
    const paths = slack.calls.map((c) => c.path);
    expect(paths.indexOf("/api/chat.postMessage")).toBeLessThan(paths.indexOf("/api/chat.update"));
    expect(await instanceStatus(server)).toBe("running");
  });

  it("a mention in a channel is answered in its thread (no notice: the agent is running)", async () => {
    const at = ts();
    const res = await slack.deliver(
      webhook,
      envelope("EvE2E0002", mention({ channel: "C0TEAM", user: "U0BOB", text: "status?", ts: at })),
    );
    expect(res.status).toBe(200);
    const reply = await waitFor("the reply", async () => replyTo("C0TEAM", "status?"), 30_000, 50);
    expect(reply).toMatchObject({ threadTs: at, history: [reply.text] });
    expect(reply.text).toContain(`in "slack:C0TEAM:${at}"`);
  });

  it("Slack's retries of the same event (X-Slack-Retry-Num) are delivered once", async () => {
    const event = dm("EvE2E0003", "D0CAROL", "only once");
    expect((await slack.deliver(webhook, event)).status).toBe(200);
    for (const retryNum of [1, 2])
      expect((await slack.deliver(webhook, event, { retryNum })).status).toBe(200);
    const first = await waitFor(
      "the reply",
      async () => replyTo("D0CAROL", "only once"),
      30_000,
      50,
    );
    await slack.deliver(webhook, dm("EvE2E0004", "D0CAROL", "next"));
    const next = await waitFor(
      "the next reply",
      async () => replyTo("D0CAROL", "next"),
      30_000,
      50,
    );
    expect(countOf(next.text)).toBe(countOf(first.text) + 1);
    expect(replies("D0CAROL").filter((m) => m.text.startsWith("echo: only once"))).toHaveLength(1);
  });

  it("a burst of 20 DMs across two chats to a sleeping agent: one wake, 20 replies in order per chat", async () => {
    await sleepNow(server);
    const creatingBefore = (await eventsOf(server, "status.creating")).length;
    const chats = ["D0BURSTA", "D0BURSTB"];
    await Promise.all(
      chats.map(async (channel) => {
        for (let i = 1; i <= 10; i++) {
          const res = await slack.deliver(webhook, dm(`EvBurst${channel}${i}`, channel, `m${i}`));
          expect(res.status).toBe(200);
        }
      }),
    );
    await waitFor(
      "20 replies",
      async () => chats.every((c) => replies(c).length === 10),
      90_000,
      100,
    );
    expect((await eventsOf(server, "status.creating")).length - creatingBefore).toBe(1);
    for (const channel of chats) {
      const posted: SlackPostedMessage[] = slack.messages.filter((m) => m.channel === channel);
      // Posted in order (the first is the waking notice, replaced by the first reply).
      expect(posted.map((m) => /^echo: (m\d+) /.exec(m.text)?.[1])).toEqual(
        Array.from({ length: 10 }, (_, i) => `m${i + 1}`),
      );
      expect(posted.map((m) => countOf(m.text))).toEqual(
        Array.from({ length: 10 }, (_, i) => i + 1),
      );
      expect(posted[0]?.history[0]).toBe(NOTICE);
      expect(posted.slice(1).every((m) => m.history.length === 1)).toBe(true);
    }
  });
});

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ClawrunServer, startClawrun } from "../../support/clawrun-server";
import { waitFor } from "../../support/free-port";
import { operatorGet } from "../../support/messages";
import { printOutputOnFailure } from "../../support/output-on-failure";
import {
  directMessage,
  envelope,
  type FakeSlack,
  startFakeSlack,
} from "../../support/platforms/slack";
import { type FakeTelegram, startFakeTelegram, textUpdate } from "../../support/platforms/telegram";

/**
 * Three agents with two channels each in one deployment (docs/several-agents.md): the default
 * agent reads TELEGRAM_BOT_TOKEN and SLACK_*, the agent "team" reads the same names with
 * `__TEAM`; each registers its own webhook URL with its own bot, answers through its own bot
 * and Slack app, and refuses a Slack request signed with the other app's secret. The third
 * agent ("ops", Telegram + the generic webhook) has no token of its own and never borrows the
 * first one's.
 */
let server: ClawrunServer;
printOutputOnFailure("the ClawRun server", () => server?.output());
let home: FakeTelegram;
let team: FakeTelegram;
let homeSlack: FakeSlack;
let teamSlack: FakeSlack;

beforeAll(async () => {
  homeSlack = await startFakeSlack({
    token: "xoxb-home-app",
    signingSecret: "0123456789abcdef0123456789abcdef",
  });
  teamSlack = await startFakeSlack({
    token: "xoxb-team-app",
    signingSecret: "fedcba9876543210fedcba9876543210",
  });
  home = await startFakeTelegram({ allowHttpWebhook: true });
  team = await startFakeTelegram({
    allowHttpWebhook: true,
    token: "987654321:AAHsecondBotTokenForClawrunTests_99",
  });
  server = await startClawrun({
    config: {
      sandbox: { activeDuration: 120 },
      agents: {
        clawrun: {
          channels: {
            telegram: { apiBaseUrl: home.url },
            slack: { apiBaseUrl: homeSlack.apiBaseUrl },
          },
        },
        team: {
          channels: {
            telegram: { apiBaseUrl: team.url },
            slack: { apiBaseUrl: teamSlack.apiBaseUrl },
          },
        },
        ops: { channels: { telegram: { apiBaseUrl: home.url }, generic: {} } },
      },
    },
    timings: { heartbeatIntervalMs: 500 },
    env: {
      TELEGRAM_BOT_TOKEN: home.token,
      TELEGRAM_BOT_TOKEN__TEAM: team.token,
      SLACK_BOT_TOKEN: "xoxb-home-app",
      SLACK_SIGNING_SECRET: "0123456789abcdef0123456789abcdef",
      SLACK_BOT_TOKEN__TEAM: "xoxb-team-app",
      SLACK_SIGNING_SECRET__TEAM: "fedcba9876543210fedcba9876543210",
    },
  });
});
afterAll(async () => {
  await server?.stop();
  await home?.stop();
  await team?.stop();
  await homeSlack?.stop();
  await teamSlack?.stop();
});

async function register(prefix: string): Promise<Response> {
  return fetch(`${server.url}${prefix}/sandbox/channels/telegram/register`, {
    method: "POST",
    headers: { authorization: `Bearer ${server.secrets.admin}` },
  });
}
const repliesTo = (fake: FakeTelegram, chatId: number) =>
  fake.calls.filter(
    (c) => c.method === "sendMessage" && c.params.chat_id === chatId && !c.viaWebhookAnswer,
  );

describe("two channels per agent, each agent with its own bot and app", () => {
  it("registers each agent's webhook URL with its own bot", async () => {
    expect((await register("/api")).status).toBe(200);
    expect((await register("/api/agents/team")).status).toBe(200);
    expect(home.webhook?.url).toBe(`${server.url}/api/webhooks/telegram`);
    expect(team.webhook?.url).toBe(`${server.url}/api/webhooks/telegram/team`);
    // Neither bot was asked to point at the other agent.
    expect(home.callsTo("setWebhook")).toHaveLength(1);
    expect(team.callsTo("setWebhook")).toHaveLength(1);
  });

  it("answers each bot's chat through that bot, from that agent", async () => {
    expect(
      (await team.deliver(textUpdate({ updateId: 1, chatId: 42, text: "hi team" }))).status,
    ).toBe(200);
    expect(
      (await home.deliver(textUpdate({ updateId: 1, chatId: 42, text: "hi home" }))).status,
    ).toBe(200);
    await waitFor(
      "both replies",
      async () => repliesTo(team, 42)[0] && repliesTo(home, 42)[0],
      45_000,
      100,
    );
    expect(String(repliesTo(team, 42)[0]?.params.text)).toMatch(/^echo: hi team \(message #1/);
    expect(String(repliesTo(home, 42)[0]?.params.text)).toMatch(/^echo: hi home \(message #1/);
    expect(repliesTo(team, 42)).toHaveLength(1);
    expect(repliesTo(home, 42)).toHaveLength(1);
  });

  it("answers each Slack app's DM from its own agent, and refuses the other app's signature", async () => {
    const dm = (id: string, text: string) =>
      envelope(id, directMessage({ channel: "D0DM", user: "U0ALICE", text, ts: `${id}.1` }));
    const teamUrl = `${server.url}/api/webhooks/slack/team`;
    // Signed with the default agent's Slack app, sent to team's URL: refused, nothing stored.
    const forged = await homeSlack.deliver(teamUrl, dm("EvForged", "forged"));
    expect(forged.status).toBe(401);
    expect((await teamSlack.deliver(teamUrl, dm("EvTeam1", "hi team app"))).status).toBe(200);
    expect(
      (await homeSlack.deliver(`${server.url}/api/webhooks/slack`, dm("EvHome1", "hi home app")))
        .status,
    ).toBe(200);
    const echoes = (fake: FakeSlack) =>
      fake.messages.filter((m) => m.channel === "D0DM" && m.text.startsWith("echo: "));
    await waitFor(
      "both Slack replies",
      async () => echoes(teamSlack)[0] && echoes(homeSlack)[0],
      45_000,
      100,
    );
    // The same conversation name, counted apart: each agent has its own sandbox and memory.
    expect(echoes(teamSlack).map((m) => m.text)).toEqual([
      expect.stringMatching(/^echo: hi team app \(message #1 in "slack:D0DM"/),
    ]);
    expect(echoes(homeSlack).map((m) => m.text)).toEqual([
      expect.stringMatching(/^echo: hi home app \(message #1 in "slack:D0DM"/),
    ]);
    expect(JSON.stringify(teamSlack.messages)).not.toContain("forged");
  });

  it("shows an agent without its own token as not set up, naming its variable", async () => {
    type Cards = { channels: { name: string; missingEnv?: string[] }[] };
    const { channels } = await operatorGet<Cards>(server, "/api/agents/ops/sandbox/channels");
    const card = channels.find((c) => c.name === "telegram");
    expect(card?.missingEnv).toEqual(["TELEGRAM_BOT_TOKEN__OPS"]);
    const res = await register("/api/agents/ops");
    expect(res.status).toBe(502);
    expect(JSON.stringify(await res.json())).toContain("TELEGRAM_BOT_TOKEN__OPS is not set");
    expect(home.callsTo("setWebhook")).toHaveLength(1);
  });
});

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ClawrunServer, startClawrun } from "../../support/clawrun-server";
import { waitFor } from "../../support/free-port";
import { operatorGet } from "../../support/messages";
import { printOutputOnFailure } from "../../support/output-on-failure";
import { type FakeTelegram, startFakeTelegram, textUpdate } from "../../support/platforms/telegram";

/**
 * Two Telegram bots in one deployment (docs/several-agents.md): the default agent reads
 * TELEGRAM_BOT_TOKEN, the agent "team" reads TELEGRAM_BOT_TOKEN__TEAM, each registers its own
 * webhook URL with its own bot and answers through it; a third agent without its own token
 * never borrows the first one's.
 */
let server: ClawrunServer;
printOutputOnFailure("the ClawRun server", () => server?.output());
let home: FakeTelegram;
let team: FakeTelegram;

beforeAll(async () => {
  home = await startFakeTelegram({ allowHttpWebhook: true });
  team = await startFakeTelegram({
    allowHttpWebhook: true,
    token: "987654321:AAHsecondBotTokenForClawrunTests_99",
  });
  server = await startClawrun({
    config: {
      sandbox: { activeDuration: 120 },
      agents: {
        clawrun: { channels: { telegram: { apiBaseUrl: home.url } } },
        team: { channels: { telegram: { apiBaseUrl: team.url } } },
        ops: { channels: { telegram: { apiBaseUrl: home.url } } },
      },
    },
    timings: { heartbeatIntervalMs: 500 },
    env: { TELEGRAM_BOT_TOKEN: home.token, TELEGRAM_BOT_TOKEN__TEAM: team.token },
  });
});
afterAll(async () => {
  await server?.stop();
  await home?.stop();
  await team?.stop();
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

describe("two Telegram bots, one per agent", () => {
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

import { startClawrun } from "../../../tests/support/clawrun-server";
import { APPLICATION_ID, startFakeDiscord } from "../../../tests/support/platforms/discord";
import { directMessage, envelope, startFakeSlack } from "../../../tests/support/platforms/slack";
import { BENCH_SANDBOX, type BenchPlatform } from "./platform";

const NOTICE = "Waking up…";

export async function slack(): Promise<BenchPlatform> {
  const token = "xoxb-bench-token";
  const signingSecret = "0123456789abcdef0123456789abcdef";
  const fake = await startFakeSlack({ token, signingSecret });
  const server = await startClawrun({
    config: {
      sandbox: BENCH_SANDBOX,
      channels: { slack: { apiBaseUrl: fake.apiBaseUrl, wakingNotice: NOTICE } },
    },
    env: { SLACK_BOT_TOKEN: token, SLACK_SIGNING_SECRET: signingSecret },
  });
  const channel = (chat: number) => `D0BENCH${chat}`;
  const textOf = (body: unknown) => (body as { text?: string; channel?: string } | null) ?? {};
  // The reply is either posted or edited into the waking notice.
  const firstCall = (chat: number, matches: (text: string) => boolean) =>
    fake.calls.find((c) => {
      const b = textOf(c.body);
      return (
        (c.path === "/api/chat.postMessage" || c.path === "/api/chat.update") &&
        b.channel === channel(chat) &&
        matches(b.text ?? "")
      );
    })?.at;
  return {
    name: "slack",
    server,
    deliver: (chat, i) =>
      fake.deliver(
        `${server.url}/api/webhooks/slack`,
        envelope(
          `EvBench${chat}x${i}`,
          directMessage({
            channel: channel(chat),
            user: "U0BENCH",
            text: `m${i}`,
            ts: `${chat}.${i}`,
          }),
        ),
      ),
    indicatorAt: (chat) => firstCall(chat, (t) => t === NOTICE),
    replyAt: (chat, i) => firstCall(chat, (t) => t.startsWith(`echo: m${i} (`)),
    stop: async () => {
      await server.stop();
      await fake.stop();
    },
  };
}

export async function discord(): Promise<BenchPlatform> {
  const fake = await startFakeDiscord();
  const server = await startClawrun({
    config: {
      sandbox: BENCH_SANDBOX,
      channels: {
        discord: {
          apiBaseUrl: fake.apiBaseUrl,
          applicationId: APPLICATION_ID,
          publicKey: fake.publicKeyHex,
        },
      },
    },
    env: { DISCORD_BOT_TOKEN: fake.botToken },
  });
  const ids = new Map<string, string>();
  const interaction = (chat: number, i: number) =>
    fake.interactions.find((x) => x.id === ids.get(`${chat}/${i}`));
  return {
    name: "discord",
    server,
    deliver: async (chat, i) => {
      const ask = fake.ask({
        channelId: `8${String(chat).padStart(6, "0")}0000000000`,
        userId: "700000000000000001",
        text: `m${i}`,
      });
      ids.set(`${chat}/${i}`, ask.id);
      const res = await fake.deliver(`${server.url}/api/webhooks/discord`, ask);
      // Anything but the deferred answer (type 5, "thinking…") is a failed acknowledgement.
      const deferred = (res.body as { type?: number } | null)?.type === 5;
      return { status: deferred ? res.status : 500, ms: res.ms };
    },
    // The deferred answer is the indicator: Discord shows "thinking…" from the moment it arrives.
    indicatorAt: (chat, i) => interaction(chat, i)?.response?.at,
    replyAt: (chat, i) => {
      const x = interaction(chat, i);
      return x?.original?.at ?? x?.followUps[0]?.at;
    },
    stop: async () => {
      await server.stop();
      await fake.stop();
    },
  };
}

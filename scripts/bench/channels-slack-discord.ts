import { type ClawrunServer, startClawrun } from "../../tests/support/clawrun-server";
import { waitFor } from "../../tests/support/free-port";
import { ensureNextBuild } from "../../tests/support/next-build";
import {
  APPLICATION_ID,
  type FakeDiscord,
  startFakeDiscord,
} from "../../tests/support/platforms/discord";
import {
  directMessage,
  envelope,
  type FakeSlack,
  startFakeSlack,
} from "../../tests/support/platforms/slack";
import { sleepNow } from "../../tests/support/sleep-now";

/**
 * Slack and Discord webhooks to a SLEEPING agent, against the production server (local
 * provider, real sidecar, echo agent, sqlite) and loopback stand-ins for the platforms:
 * - ack: webhook request → ClawRun's answer (what the platform waits for), p50/p99;
 * - indicator: webhook sent → the "while waking" indicator reaches the platform (Slack: the
 *   waking notice's chat.postMessage; Discord: the deferred response, i.e. the ack itself).
 * Each round puts the agent to sleep, then sends 20 messages one after another, each in its
 * own conversation (so each shows its indicator), and waits for the 20 replies.
 *   npx tsx scripts/bench/channels.ts      (BENCH_CHANNEL_ROUNDS, default 10 → 200 messages)
 */
const ROUNDS = Number(process.env.BENCH_CHANNEL_ROUNDS ?? 10);
const PER_ROUND = 20;
const NOTICE = "Waking up…";

interface Sample {
  ack: number;
  indicator: number;
}

async function slackRound(
  server: ClawrunServer,
  slack: FakeSlack,
  round: number,
): Promise<Sample[]> {
  const url = `${server.url}/api/webhooks/slack`;
  const samples: { ack: number; sentAt: number; channel: string }[] = [];
  for (let k = 0; k < PER_ROUND; k++) {
    const channel = `D0R${round}K${k}`;
    const event = envelope(
      `EvBench${round}x${k}`,
      directMessage({ channel, user: "U0BENCH", text: `m${k}`, ts: `${Date.now() / 1000}` }),
    );
    const sentAt = Date.now();
    const res = await slack.deliver(url, event);
    if (res.status !== 200) throw new Error(`slack webhook answered ${res.status}`);
    samples.push({ ack: res.ms, sentAt, channel });
  }
  const replied = (channel: string) =>
    slack.messages.some((m) => m.channel === channel && m.text.startsWith("echo:"));
  await waitFor(
    "the round's replies",
    async () => samples.every((s) => replied(s.channel)),
    60_000,
    50,
  );
  return samples.map((s) => {
    const notice = slack.calls.find(
      (c) =>
        c.path === "/api/chat.postMessage" &&
        (c.body as { channel?: string; text?: string })?.channel === s.channel &&
        (c.body as { text?: string }).text === NOTICE,
    );
    if (!notice) throw new Error(`no waking notice in ${s.channel}`);
    return { ack: s.ack, indicator: notice.at - s.sentAt };
  });
}

async function discordRound(
  server: ClawrunServer,
  discord: FakeDiscord,
  round: number,
): Promise<Sample[]> {
  const url = `${server.url}/api/webhooks/discord`;
  const samples: { ack: number; id: string }[] = [];
  for (let k = 0; k < PER_ROUND; k++) {
    const i = discord.ask({
      channelId: `8${String(round).padStart(3, "0")}${String(k).padStart(3, "0")}00000000000`,
      userId: "700000000000000001",
      text: `m${k}`,
    });
    const res = await discord.deliver(url, i);
    if (res.status !== 200 || (res.body as { type?: number }).type !== 5)
      throw new Error(`discord webhook answered ${res.status}`);
    samples.push({ ack: res.ms, id: i.id });
  }
  const answered = (id: string) => discord.interactions.find((x) => x.id === id)?.original;
  await waitFor(
    "the round's replies",
    async () => samples.every((s) => answered(s.id)),
    60_000,
    50,
  );
  // The deferred response ("thinking…") is the acknowledgement itself.
  return samples.map((s) => ({ ack: s.ack, indicator: s.ack }));
}

function percentile(values: number[], p: number): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(p * s.length) - 1)] ?? 0;
}

async function main() {
  ensureNextBuild();
  const token = "xoxb-bench-token";
  const signingSecret = "0123456789abcdef0123456789abcdef";
  const slack = await startFakeSlack({ token, signingSecret });
  const discord = await startFakeDiscord();
  const server = await startClawrun({
    config: {
      sandbox: { activeDuration: 600 },
      channels: {
        slack: { apiBaseUrl: slack.apiBaseUrl, wakingNotice: NOTICE },
        discord: {
          apiBaseUrl: discord.apiBaseUrl,
          applicationId: APPLICATION_ID,
          publicKey: discord.publicKeyHex,
        },
      },
    },
    env: {
      SLACK_BOT_TOKEN: token,
      SLACK_SIGNING_SECRET: signingSecret,
      DISCORD_BOT_TOKEN: discord.botToken,
    },
  });
  try {
    // First start (no snapshot yet) is not what is measured.
    await slack.deliver(
      `${server.url}/api/webhooks/slack`,
      envelope(
        "EvWarm",
        directMessage({ channel: "D0WARM", user: "U0B", text: "warm", ts: "1.1" }),
      ),
    );
    await waitFor(
      "running",
      async () => slack.messages.some((m) => m.channel === "D0WARM" && m.text.startsWith("echo:")),
      60_000,
    );
    const results: Record<string, Sample[]> = { slack: [], discord: [] };
    for (let r = 0; r < ROUNDS; r++) {
      await sleepNow(server);
      results.slack?.push(...(await slackRound(server, slack, r)));
      await sleepNow(server);
      results.discord?.push(...(await discordRound(server, discord, r)));
    }
    console.log(
      `channel webhooks to a sleeping agent: ${ROUNDS} rounds × ${PER_ROUND} messages per channel (local provider, echo agent, sqlite)\n`,
    );
    console.log(
      "| channel | messages | ack p50 ms | ack p99 ms | indicator p50 ms | indicator p99 ms |",
    );
    console.log(
      "| ------- | -------- | ---------- | ---------- | ---------------- | ---------------- |",
    );
    for (const [name, samples] of Object.entries(results)) {
      const acks = samples.map((s) => s.ack);
      const ind = samples.map((s) => s.indicator);
      const f = (n: number) => n.toFixed(1);
      console.log(
        `| ${name.padEnd(7)} | ${String(samples.length).padStart(8)} | ${f(percentile(acks, 0.5)).padStart(10)} | ${f(percentile(acks, 0.99)).padStart(10)} | ${f(percentile(ind, 0.5)).padStart(16)} | ${f(percentile(ind, 0.99)).padStart(16)} |`,
      );
    }
    console.log(
      "\nindicator: Slack = webhook sent → waking notice posted; Discord = the deferred (type 5) answer, i.e. the ack",
    );
  } finally {
    await server.stop();
    await slack.stop();
    await discord.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

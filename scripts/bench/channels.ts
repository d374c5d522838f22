import { waitFor } from "../../tests/support/free-port";
import { ensureNextBuild } from "../../tests/support/next-build";
import { sleepNow } from "../../tests/support/sleep-now";
import type { BenchPlatform } from "./channels/platform";
import { discord, slack } from "./channels/slack-discord";
import { telegram, whatsapp } from "./channels/telegram-whatsapp";

/**
 * Chat channel webhooks to a SLEEPING agent, against the production server (local provider,
 * real sidecar, echo agent, sqlite), with the loopback stand-ins of tests/support/platforms
 * sending webhooks as each platform does. Each round puts the agent to sleep, then sends
 * BENCH_BURST (default 20) messages one after another in one chat: the first wakes the agent,
 * the rest arrive while it wakes. Over BENCH_ROUNDS (default 10) rounds, per channel:
 *   - ack: webhook sent → the platform has its answer (every message, p50/p99; goal p99 < 100 ms)
 *   - indicator: webhook sent → the platform shows the waiting indicator (first message of a round)
 *   - reply: webhook sent → the platform receives the agent's reply (first message of a round)
 *   npm run bench -- channels            BENCH_CHANNELS=telegram,slack to pick some
 */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 10);
const BURST = Number(process.env.BENCH_BURST ?? 20);
const PLATFORMS = { telegram, whatsapp, slack, discord };

async function measure(p: BenchPlatform) {
  // Warm-up: the first start builds the sandbox from scratch; the rounds wake from a snapshot.
  if ((await p.deliver(1, 0)).status !== 200)
    throw new Error("warm-up message was not acknowledged");
  await waitFor("warm-up reply", async () => p.replyAt(1, 0), 60_000, 50);
  const acks: number[] = [];
  const indicators: number[] = [];
  const replies: number[] = [];
  for (let r = 1; r <= ROUNDS; r++) {
    await sleepNow(p.server);
    const chat = 1000 + r;
    const firstSentAt = Date.now();
    for (let i = 0; i < BURST; i++) {
      const { status, ms } = await p.deliver(chat, i);
      if (status !== 200) throw new Error(`${p.name}: webhook answered ${status}`);
      acks.push(ms);
    }
    await waitFor("the burst's replies", async () => p.replyAt(chat, BURST - 1), 120_000, 20);
    indicators.push((p.indicatorAt(chat, 0) ?? Number.NaN) - firstSentAt);
    replies.push((p.replyAt(chat, 0) ?? Number.NaN) - firstSentAt);
  }
  return { acks, indicators, replies };
}

function pct(values: number[], p: number): number {
  const s = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(p * s.length) - 1)] ?? Number.NaN;
}

async function main() {
  ensureNextBuild();
  const picked = (process.env.BENCH_CHANNELS ?? "").split(",").filter(Boolean);
  const rows: string[] = [];
  for (const [name, make] of Object.entries(PLATFORMS)) {
    if (picked.length > 0 && !picked.includes(name)) continue;
    const p = await make();
    try {
      const { acks, indicators, replies } = await measure(p);
      const cells = [pct(acks, 0.5), pct(acks, 0.99), pct(indicators, 0.5), pct(indicators, 0.99)];
      cells.push(pct(replies, 0.5), pct(replies, 0.99));
      rows.push(
        `| ${name.padEnd(8)} | ${String(acks.length).padStart(4)} | ${cells.map((v) => v.toFixed(1).padStart(8)).join(" | ")} |`,
      );
    } finally {
      await p.stop();
    }
  }
  console.log(
    `chat channels: ${ROUNDS} rounds of ${BURST} webhooks to a sleeping agent (local provider, echo agent, sqlite); ms\n`,
  );
  console.log(
    "| channel  |    n |  ack p50 |  ack p99 | indicator p50 | indicator p99 | reply p50 | reply p99 |",
  );
  console.log("| --- | --: | --: | --: | --: | --: | --: | --: |");
  for (const row of rows) console.log(row);
  console.log(
    "\nindicator: Telegram typing, WhatsApp typing with the read receipt, Slack waking notice, Discord the deferred (type 5) answer",
  );
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

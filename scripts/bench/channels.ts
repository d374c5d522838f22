import { performance } from "node:perf_hooks";
import { channelsCli } from "../../tests/support/channels-cli";
import { type ClawrunServer, startClawrun } from "../../tests/support/clawrun-server";
import { waitFor } from "../../tests/support/free-port";
import { instanceStatus } from "../../tests/support/messages";
import { ensureNextBuild } from "../../tests/support/next-build";
import { startFakeTelegram, textUpdate } from "../../tests/support/platforms/telegram";
import {
  messagesPayload,
  startFakeWhatsapp,
  textMessage,
} from "../../tests/support/platforms/whatsapp";

/**
 * Chat channels against the production server (local provider, echo agent, sqlite), with
 * the fake platform APIs from tests/support/platforms delivering webhooks as the platforms
 * do. Each round puts the agent to sleep through the operator API, then sends BENCH_BURST
 * (default 20) webhooks one after another: the first wakes the agent, the rest arrive while
 * it wakes. Reported per channel, over BENCH_ROUNDS (default 10) rounds:
 *   - ack: webhook sent → platform gets its 200 (all messages, p50/p99)
 *   - indicator: webhook sent → the platform receives the typing indicator (first message of each round)
 *   - reply: webhook sent → the platform receives the agent's reply (first message of each round)
 *   npx tsx scripts/bench/channels.ts [telegram|whatsapp]
 */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 10);
const BURST = Number(process.env.BENCH_BURST ?? 20);

interface Platform {
  name: string;
  /** Delivers message `i` of conversation `chat` and returns the HTTP status. */
  deliver(chat: number, i: number): Promise<number>;
  /** When the platform saw the indicator / the reply for that message (ms epoch), if yet. */
  indicatorAt(chat: number, i: number): number | undefined;
  replyAt(chat: number, i: number): number | undefined;
}

async function sleepAgent(server: ClawrunServer): Promise<void> {
  const res = await fetch(`${server.url}/api/sandbox/stop`, {
    method: "POST",
    headers: { authorization: `Bearer ${server.secrets.admin}` },
  });
  if (res.status !== 202) throw new Error(`stop answered ${res.status}: ${await res.text()}`);
  await waitFor("sleeping", async () => (await instanceStatus(server)) === "sleeping", 60_000, 50);
}

async function measure(server: ClawrunServer, p: Platform) {
  // Warm-up: the first start builds the sandbox from scratch; rounds wake from a snapshot.
  if ((await p.deliver(1, 0)) !== 200) throw new Error("warm-up message was not acknowledged");
  await waitFor("warm-up reply", async () => p.replyAt(1, 0), 60_000, 50);
  const acks: number[] = [];
  const indicators: number[] = [];
  const replies: number[] = [];
  for (let r = 1; r <= ROUNDS; r++) {
    await sleepAgent(server);
    const chat = 1000 + r;
    const sentAt: number[] = [];
    for (let i = 0; i < BURST; i++) {
      sentAt.push(Date.now());
      const t0 = performance.now();
      const status = await p.deliver(chat, i);
      acks.push(performance.now() - t0);
      if (status !== 200) throw new Error(`${p.name}: webhook answered ${status}`);
    }
    await waitFor("the burst's replies", async () => p.replyAt(chat, BURST - 1), 120_000, 20);
    const first = sentAt[0] as number;
    indicators.push((p.indicatorAt(chat, 0) ?? Number.NaN) - first);
    replies.push((p.replyAt(chat, 0) ?? Number.NaN) - first);
  }
  return { acks, indicators, replies };
}

function pct(values: number[], p: number): number {
  const s = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(p * s.length) - 1)] ?? Number.NaN;
}

async function telegram(): Promise<Platform & { stop(): Promise<void>; server: ClawrunServer }> {
  const fake = await startFakeTelegram({ allowHttpWebhook: true });
  const server = await startClawrun({
    config: { sandbox: { activeDuration: 600 }, channels: { telegram: { apiBaseUrl: fake.url } } },
    env: { TELEGRAM_BOT_TOKEN: fake.token },
  });
  const reg = await channelsCli(server, ["register", "telegram"]);
  if (reg.code !== 0) throw new Error(`register failed: ${reg.stdout}${reg.stderr}`);
  const updateId = (chat: number, i: number) => chat * 1000 + i;
  const firstCall = (method: string, chat: number, i: number) =>
    fake.calls.find(
      (c) =>
        c.method === method &&
        c.params.chat_id === chat &&
        (method === "sendChatAction" ||
          (c.params.reply_parameters as { message_id?: number } | undefined)?.message_id ===
            updateId(chat, i)),
    )?.at;
  return {
    name: "telegram",
    server,
    deliver: async (chat, i) =>
      (await fake.deliver(textUpdate({ updateId: updateId(chat, i), chatId: chat, text: `m${i}` })))
        .status,
    indicatorAt: (chat, i) => firstCall("sendChatAction", chat, i),
    replyAt: (chat, i) => firstCall("sendMessage", chat, i),
    stop: async () => {
      await server.stop();
      await fake.stop();
    },
  };
}

async function whatsapp(): Promise<Platform & { stop(): Promise<void>; server: ClawrunServer }> {
  const fake = await startFakeWhatsapp();
  const server = await startClawrun({
    config: {
      sandbox: { activeDuration: 600 },
      channels: { whatsapp: { apiBaseUrl: fake.url, apiVersion: fake.version, appId: fake.appId } },
    },
    env: {
      WHATSAPP_ACCESS_TOKEN: fake.accessToken,
      WHATSAPP_APP_SECRET: fake.appSecret,
      WHATSAPP_VERIFY_TOKEN: "bench-verify-token-0123456789",
    },
  });
  const reg = await channelsCli(server, ["register", "whatsapp"]);
  if (reg.code !== 0) throw new Error(`register failed: ${reg.stdout}${reg.stderr}`);
  const waId = (chat: number) => `49151${String(chat).padStart(8, "0")}`;
  const wamid = (chat: number, i: number) => `wamid.bench-${chat}-${i}`;
  return {
    name: "whatsapp",
    server,
    deliver: async (chat, i) =>
      (
        await fake.deliver(
          messagesPayload("106540352242922", [textMessage(waId(chat), wamid(chat, i), `m${i}`)]),
        )
      ).status,
    indicatorAt: (chat, i) =>
      fake.calls.find((c) => c.params.status === "read" && c.params.message_id === wamid(chat, i))
        ?.at,
    replyAt: (chat, i) =>
      fake.calls.find(
        (c) =>
          c.params.type === "text" &&
          c.params.to === waId(chat) &&
          (c.params.text as { body: string }).body.startsWith(`echo: m${i} (`),
      )?.at,
    stop: async () => {
      await server.stop();
      await fake.stop();
    },
  };
}

async function main() {
  ensureNextBuild();
  const picked = process.argv.slice(2);
  const rows: string[] = [];
  const notes: string[] = [];
  const platforms = { telegram, whatsapp };
  for (const [name, make] of Object.entries(platforms)) {
    if (picked.length > 0 && !picked.includes(name)) continue;
    const p = await make();
    try {
      const { acks, indicators, replies } = await measure(p.server, p);
      // Where in a burst the slowest acknowledgements fall (0 = the message that wakes the agent).
      const slowest = acks
        .map((ms, k) => ({ ms, at: k % BURST }))
        .sort((a, b) => b.ms - a.ms)
        .slice(0, 5)
        .map((x) => `${x.ms.toFixed(0)} ms at #${x.at}`);
      notes.push(`${p.name}: slowest acks ${slowest.join(", ")}`);
      const f = (v: number) => v.toFixed(1).padStart(8);
      rows.push(
        `| ${p.name.padEnd(8)} | ${String(acks.length).padStart(4)} | ${f(pct(acks, 0.5))} | ${f(pct(acks, 0.99))} | ${f(pct(indicators, 0.5))} | ${f(pct(indicators, 0.99))} | ${f(pct(replies, 0.5))} | ${f(pct(replies, 0.99))} |`,
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
  console.log(
    "| -------- | ---- | -------- | -------- | ------------- | ------------- | --------- | --------- |",
  );
  for (const row of rows) console.log(row);
  console.log("");
  for (const note of notes) console.log(note);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

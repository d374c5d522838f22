import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { createAppContext } from "../../src/server/compose/context";
import { liveFeed } from "../../src/server/dashboard/live-feed";
import { FEED_TIMINGS } from "../../src/server/dashboard/marker-feed";
import { buildOverview } from "../../src/server/dashboard/overview";
import { type CountingStore, countingStore } from "../../tests/support/counting-store";
import { benchSource } from "./bench-source";

/**
 * What the dashboard sees of a wake and a sleep (SQLite, the local provider, the echo agent,
 * in process): the live feed (server-sent events, the shipped timings) against the anchor, the
 * previous dashboard's poller (every 3 s calm, 1 s during a transition), run side by side over
 * the same wakes. For each status entered: whether the page learns of it and how late.
 * Also the store calls an open feed costs per minute while nothing happens.
 *   npx tsx scripts/bench/dashboard.ts     (BENCH_CYCLES=<n>, default 8)
 */
const CYCLES = Number(process.env.BENCH_CYCLES ?? 8);
const STATUSES = ["creating", "starting", "running", "snapshotting", "stopping", "sleeping"];

interface Seen {
  status: string;
  /** Browser-side arrival (ms). */
  at: number;
}

/** For each entered status: when the page first learned of it (at or after it happened). */
function report(label: string, seen: Seen[], entered: Seen[]): string {
  const delays: number[] = [];
  let missed = 0;
  entered.forEach((e, n) => {
    const next = entered[n + 1]?.at ?? Number.POSITIVE_INFINITY;
    const hit = seen.find((s) => s.status === e.status && s.at >= e.at && s.at <= next + 5_000);
    if (hit) delays.push(hit.at - e.at);
    else missed++;
  });
  delays.sort((a, b) => a - b);
  const pct = (q: number) =>
    delays[Math.min(delays.length - 1, Math.floor(q * delays.length))] ?? 0;
  const seenShare = ((entered.length - missed) / entered.length) * 100;
  return `| ${label.padEnd(34)} | ${`${seenShare.toFixed(0)} %`.padStart(6)} | ${String(pct(0.5)).padStart(6)} | ${String(pct(0.99)).padStart(6)} |`;
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "clawrun-bench-dashboard-"));
  writeFileSync(join(dir, "clawrun.json"), "{}");
  let counter: CountingStore | null = null;
  const ctx = await createAppContext({
    source: benchSource(dir, { CLAWRUN_SECRET: randomBytes(24).toString("hex") }),
    logger: pino({ level: "silent" }),
    wrapStore: (s) => {
      counter = countingStore(s);
      return counter.store;
    },
  });
  const calls = () => (counter as CountingStore | null)?.calls() ?? 0;

  // The live feed, read as a browser would.
  const sse: Seen[] = [];
  const abort = new AbortController();
  const reading = (async () => {
    const reader = liveFeed(ctx, abort.signal).getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        if (!block.startsWith("event: overview")) continue;
        const data = JSON.parse(block.slice(block.indexOf("data: ") + 6));
        const now = Date.now();
        for (const t of data.transitions) sse.push({ status: t.status, at: now });
        sse.push({ status: data.overview.instance.status, at: now });
      }
    }
  })();

  // The anchor: the old poller (3 s calm, 1 s while transitioning), reading the same overview.
  const polled: Seen[] = [];
  let polling = true;
  const poller = (async () => {
    while (polling) {
      const o = await buildOverview(ctx);
      polled.push({ status: o.instance.status, at: Date.now() });
      await new Promise((r) => setTimeout(r, o.transitioning ? 1_000 : 3_000));
    }
  })();

  // Quiet minute share: store calls of the feed alone (the poller paused above is not counted).
  await new Promise((r) => setTimeout(r, 3_000));

  const entered: { status: string; at: number }[] = [];
  for (let i = 0; i < CYCLES; i++) {
    await ctx.manager.wake({ reason: `bench ${i}`, trigger: "operator" });
    await new Promise((r) => setTimeout(r, 2_500));
    await ctx.manager.sleep(`bench ${i}`);
    await new Promise((r) => setTimeout(r, 2_500));
  }
  for (const e of await ctx.store.events.list(1_000))
    if (e.type.startsWith("status.")) entered.push({ status: e.type.slice(7), at: e.at });
  entered.reverse();

  polling = false;
  await poller;
  // Store calls of the open feed alone over 20 quiet seconds.
  const before = calls();
  const quietMs = 20_000;
  await new Promise((r) => setTimeout(r, quietMs));
  const perMinute = ((calls() - before) / quietMs) * 60_000;
  abort.abort();
  await reading;

  console.log(
    `${CYCLES} wake + sleep cycles, ${entered.length} statuses entered (${STATUSES.join(", ")})\n`,
  );
  console.log("| dashboard                          | seen   | p50 ms | p99 ms |");
  console.log("| ---------------------------------- | ------ | ------ | ------ |");
  console.log(report(`live feed (SSE, poll ${FEED_TIMINGS.pollMs} ms)`, sse, entered));
  console.log(report("anchor: old poller (3 s / 1 s)", polled, entered));
  console.log(
    `\nstore calls of one open live feed while nothing happens: ${perMinute.toFixed(0)} per minute`,
  );
  await ctx.close();
  await rm(dir, { recursive: true, force: true });
}

void main();

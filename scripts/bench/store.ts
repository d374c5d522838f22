import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import type { Requester } from "@upstash/redis";
import IORedis from "ioredis";
import { INITIAL_STATE } from "../../src/server/sandbox/state-cell";
import { requesterConnection, upstashConnection } from "../../src/server/store/redis/client";
import { RedisStore } from "../../src/server/store/redis/store";
import { TcpRequester } from "../../src/server/store/redis/tcp-requester";
import { SqliteStore } from "../../src/server/store/sqlite/store";
import type { Store } from "../../src/server/store/types";
import { startRedisServer } from "../../tests/support/redis-server";
import { startUpstashRestProxy } from "../../tests/support/upstash-rest-proxy";

/**
 * The heartbeat hot path (recordHeartbeat: record + read state) on every store: latency
 * p50/p99 and what each heartbeat actually costs — requests sent (round trips) and backend
 * commands executed (redis INFO commandstats deltas, which include commands run inside Lua;
 * SQL statements for sqlite). Uses a throwaway redis-server; REST goes through the local
 * Upstash-compatible proxy, so its latency is loopback HTTP, not Upstash's.
 *   npx tsx scripts/bench/store.ts        (BENCH_HEARTBEATS=<n> to change the count)
 */

const HEARTBEATS = Number(process.env.BENCH_HEARTBEATS ?? 2_000);
const WARMUP = 50;

interface Row {
  store: string;
  p50: number;
  p99: number;
  trips: string;
  commands: string;
}

const initialState = {
  ...INITIAL_STATE,
  status: "running" as const,
  reason: "bench",
  sandboxId: "sb-bench",
  sandboxCreatedAt: 0,
};

let sentAt = 1;
const heartbeat = () => ({
  sandboxId: "sb-bench",
  sentAt: sentAt++,
  receivedAt: Date.now(),
  lastChangedAt: 0,
  sandboxCreatedAt: 0,
  root: "/sandbox",
  daemonStatus: "running" as const,
  daemonRestarts: 0,
});

async function measure(
  label: string,
  store: Store,
  trips: () => number,
  commands: () => Promise<Map<string, number>>,
): Promise<Row> {
  await store.state.compareAndSet(0, initialState);
  for (let i = 0; i < WARMUP; i++) await store.heartbeats.record(heartbeat());
  const trips0 = trips();
  const commands0 = await commands();
  const latencies: number[] = [];
  for (let i = 0; i < HEARTBEATS; i++) {
    const t = performance.now();
    const { fresh, state } = await store.heartbeats.record(heartbeat());
    latencies.push(performance.now() - t);
    if (!fresh || !state) throw new Error(`${label}: heartbeat not recorded`);
  }
  const perBeat = (n: number) => (n / HEARTBEATS).toFixed(2).replace(/\.00$/, "");
  const delta = diff(await commands(), commands0);
  const total = [...delta.values()].reduce((a, b) => a + b, 0);
  const breakdown = [...delta]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, n]) => `${name} ${perBeat(n)}`)
    .join(", ");
  latencies.sort((a, b) => a - b);
  const pct = (p: number) =>
    latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] ?? 0;
  await store.close();
  return {
    store: label,
    p50: pct(0.5),
    p99: pct(0.99),
    trips: perBeat(trips() - trips0),
    commands: `${perBeat(total)} (${breakdown})`,
  };
}

function diff(after: Map<string, number>, before: Map<string, number>): Map<string, number> {
  const out = new Map<string, number>();
  for (const [name, n] of after) {
    const d = n - (before.get(name) ?? 0);
    if (d > 0) out.set(name, d);
  }
  return out;
}

/** Calls per command since the server started, minus our own INFO calls. */
async function commandStats(raw: IORedis): Promise<Map<string, number>> {
  const info = await raw.info("commandstats");
  const stats = new Map<string, number>();
  for (const m of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) {
    if (m[1] && m[1] !== "info") stats.set(m[1], Number(m[2]));
  }
  return stats;
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "clawrun-bench-"));
  const server = await startRedisServer();
  const proxy = await startUpstashRestProxy(server.url);
  const raw = new IORedis(server.url);
  const rows: Row[] = [];
  try {
    const statements = new Map<string, number>();
    const sqlite = new SqliteStore(join(dir, "store.db"), {
      instance: "bench",
      onStatement: (sql) => {
        const verb = (/^\s*(\w+)/.exec(sql)?.[1] ?? "?").toLowerCase();
        statements.set(verb, (statements.get(verb) ?? 0) + 1);
      },
    });
    rows.push(
      await measure(
        "sqlite (WAL file)",
        sqlite,
        () => 0,
        async () => new Map(statements),
      ),
    );

    const tcp = new TcpRequester(server.url);
    let tcpRequests = 0;
    const counting: Requester = {
      request: (req) => {
        tcpRequests++;
        return tcp.request(req);
      },
    };
    const tcpStore = new RedisStore(
      requesterConnection(counting, "tcp", () => tcp.close()),
      {
        instance: "bench-tcp",
      },
    );
    rows.push(
      await measure(
        "redis over TCP",
        tcpStore,
        () => tcpRequests,
        () => commandStats(raw),
      ),
    );

    const restStore = new RedisStore(upstashConnection(proxy.url, proxy.token), {
      instance: "bench-rest",
    });
    rows.push(
      await measure("redis over REST (local proxy)", restStore, proxy.requests, () =>
        commandStats(raw),
      ),
    );
  } finally {
    raw.disconnect();
    await proxy.stop();
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  }
  print(rows);
}

function print(rows: Row[]): void {
  const table = [
    ["store", "p50 ms", "p99 ms", "round trips/hb", "backend commands/hb"],
    ...rows.map((r) => [r.store, r.p50.toFixed(3), r.p99.toFixed(3), r.trips, r.commands]),
  ];
  const widths =
    table[0]?.map((_, i) => Math.max(...table.map((row) => row[i]?.length ?? 0))) ?? [];
  console.log(
    `recordHeartbeat (record + read state), ${HEARTBEATS} heartbeats after ${WARMUP} warm-up\n`,
  );
  for (const [i, row] of table.entries()) {
    console.log(`| ${row.map((c, j) => c.padEnd(widths[j] ?? 0)).join(" | ")} |`);
    if (i === 0) console.log(`| ${widths.map((w) => "-".repeat(w)).join(" | ")} |`);
  }
  console.log("\nsqlite has no round trips (in-process); its commands are SQL statements run.");
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});

import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import pino from "pino";
import { LIFECYCLE } from "../../src/config/constants";
import { signatureHeaders } from "../../src/protocol/signing";
import { EchoAgent } from "../../src/server/agents/echo/echo-agent";
import { heartbeatSecret } from "../../src/server/auth/derive-key";
import { parseClawrunConfig } from "../../src/server/config-schema";
import type { AppContext } from "../../src/server/context";
import { handleHeartbeatRequest } from "../../src/server/http/heartbeat-handler";
import { LocalProvider } from "../../src/server/providers/local/local-provider";
import { SandboxLifecycleManager } from "../../src/server/sandbox/manager";
import { CountBasedRetention } from "../../src/server/sandbox/retention";
import { INITIAL_STATE } from "../../src/server/sandbox/state-cell";
import { requesterConnection } from "../../src/server/store/redis-client";
import { RedisStore } from "../../src/server/store/redis-store";
import { SqliteStore } from "../../src/server/store/sqlite-store";
import { TcpRequester } from "../../src/server/store/tcp-requester";
import type { Store } from "../../src/server/store/types";
import { startRedisServer } from "../../tests/support/redis-server";

/**
 * Heartbeat handling as the route does it (size limit, signature with the per-sandbox
 * secret, schema, store, policy, and the TTL extend when due) against a real sandbox,
 * on both stores: latency p50/p99 and store round trips per heartbeat (one Store call is
 * one round trip on the redis adapter; see docs/store.md).
 *   npx tsx scripts/bench/heartbeat.ts     (BENCH_HEARTBEATS=<n>)
 */
const N = Number(process.env.BENCH_HEARTBEATS ?? 1_000);
const MASTER = "bench-master-secret-0123456789abcdef";

/** Counts every Store method call made through it. */
function counting(store: Store): { store: Store; calls: () => number } {
  let calls = 0;
  const proxy = new Proxy(store, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        calls++;
        return value.apply(target, args);
      };
    },
  });
  return { store: proxy, calls: () => calls };
}

async function run(label: string, raw: Store, provider: LocalProvider, extend: boolean) {
  const logger = pino({ level: "silent" });
  const config = parseClawrunConfig({ sandbox: { activeDuration: 300 } });
  const { store, calls } = counting(raw);
  const manager = new SandboxLifecycleManager({
    store,
    provider,
    agent: new EchoAgent(),
    hooks: [],
    retention: new CountBasedRetention(3),
    logger,
    config,
    // The "extend" case keeps the buffer above the TTL so every heartbeat extends.
    timings: { ...LIFECYCLE, ttlBufferMs: extend ? 1e12 : 1 },
    masterSecret: MASTER,
    publicUrl: "http://127.0.0.1:1",
    clock: Date.now,
    channels: new Map(),
  });
  const sandbox = await provider.create({ timeoutMs: 3_600_000, ports: [3000, 3001] });
  const now = Date.now();
  await raw.state.compareAndSet((await raw.state.get())?.version ?? 0, {
    ...INITIAL_STATE,
    status: "running",
    since: now,
    sandboxId: sandbox.id,
    sandboxCreatedAt: now,
    ttlDeadline: now + 3_600_000,
  });
  const ctx = {
    secrets: { secrets: { CLAWRUN_SECRET: MASTER } },
    manager,
    logger,
  } as unknown as AppContext;
  const secret = heartbeatSecret(MASTER, sandbox.id);
  const latencies: number[] = [];
  let actions = "";
  const before = calls();
  for (let i = 0; i < N; i++) {
    const body = JSON.stringify({
      sandboxId: sandbox.id,
      lastChangedAt: Date.now(),
      sandboxCreatedAt: now,
      root: sandbox.root,
      daemonStatus: "running",
      daemonRestarts: 0,
    });
    const t0 = performance.now();
    const req = new Request("http://bench/api/heartbeat", {
      method: "POST",
      body,
      headers: signatureHeaders(secret, body, Date.now() + i),
    });
    const { response } = await handleHeartbeatRequest(req, ctx);
    latencies.push(performance.now() - t0);
    if (i === 0) actions = ((await response.json()) as { action: string }).action;
    else await response.arrayBuffer();
  }
  const perHeartbeat = (calls() - before) / N;
  await sandbox.stop();
  latencies.sort((a, b) => a - b);
  const pct = (p: number) =>
    (
      latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? 0
    ).toFixed(2);
  return `| ${label.padEnd(28)} | ${actions.padEnd(6)} | ${pct(50).padStart(6)} | ${pct(99).padStart(6)} | ${perHeartbeat.toFixed(1).padStart(16)} |`;
}

async function main() {
  const dir = await mkdtemp(join(tmpdir(), "clawrun-bench-hb-"));
  const redis = await startRedisServer();
  const provider = new LocalProvider({ stateDir: dir, logger: pino({ level: "silent" }) });
  const rows: string[] = [];
  try {
    for (const extend of [false, true]) {
      const sqlite = new SqliteStore(join(dir, `store-${extend}.db`), { instance: "bench" });
      rows.push(await run(`sqlite`, sqlite, provider, extend));
      await sqlite.close();
      const conn = requesterConnection(new TcpRequester(redis.url), `redis ${redis.url}`);
      const store = new RedisStore(conn, { instance: `bench-${extend}` });
      rows.push(await run(`redis over TCP`, store, provider, extend));
      await store.close();
    }
  } finally {
    await redis.stop();
    await rm(dir, { recursive: true, force: true });
  }
  console.log(
    `heartbeat handling, ${N} heartbeats each (route handler in-process, real sandbox, real stores)\n`,
  );
  console.log("| store                        | action | p50 ms | p99 ms | store trips / hb |");
  console.log("| ---------------------------- | ------ | ------ | ------ | ---------------- |");
  for (const r of rows) console.log(r);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

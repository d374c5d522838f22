import { writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import pino from "pino";
import { heartbeatSecret } from "../../src/protocol/derive-key";
import { signatureHeaders } from "../../src/protocol/signing";
import { createAppContext } from "../../src/server/compose/context";
import { handleHeartbeatRequest } from "../../src/server/http/heartbeat-handler";
import { INITIAL_STATE } from "../../src/server/sandbox/state-cell";
import { type CountingStore, countingStore } from "../../tests/support/counting-store";
import { startRedisServer } from "../../tests/support/redis-server";
import { benchSource } from "./bench-source";

/**
 * Heartbeat handling as the route does it (size limit, signature with the per-sandbox
 * secret, schema, store, policy, and the TTL extend when due) against a real sandbox,
 * on both stores: latency p50/p99 and store round trips per heartbeat (one Store call is
 * one round trip on the redis adapter; see docs/store.md).
 *   npx tsx scripts/bench/heartbeat.ts     (BENCH_HEARTBEATS=<n>)
 */
const N = Number(process.env.BENCH_HEARTBEATS ?? 1_000);
const MASTER = "bench-master-secret-0123456789abcdef";

async function run(label: string, env: Record<string, string>, dir: string, extend: boolean) {
  let counter: CountingStore | null = null;
  writeFileSync(join(dir, "clawrun.json"), JSON.stringify({ sandbox: { activeDuration: 300 } }));
  const ctx = await createAppContext({
    source: benchSource(dir, {
      CLAWRUN_SECRET: MASTER,
      // The "extend" case keeps the buffer above the TTL so every heartbeat extends.
      CLAWRUN_TIMINGS: JSON.stringify({ ttlBufferMs: extend ? 1e12 : 1 }),
      ...env,
    }),
    logger: pino({ level: "silent" }),
    wrapStore: (s) => {
      counter = countingStore(s);
      return counter.store;
    },
  });
  const raw = ctx.store;
  const provider = ctx.provider;
  const calls = () => (counter as CountingStore | null)?.calls() ?? 0;
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
  await ctx.close();
  latencies.sort((a, b) => a - b);
  const pct = (p: number) =>
    (
      latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? 0
    ).toFixed(2);
  return `| ${label.padEnd(28)} | ${actions.padEnd(6)} | ${pct(50).padStart(6)} | ${pct(99).padStart(6)} | ${perHeartbeat.toFixed(1).padStart(16)} |`;
}

async function main() {
  const redis = await startRedisServer();
  const rows: string[] = [];
  const dirs: string[] = [];
  try {
    for (const extend of [false, true]) {
      for (const [label, env] of [
        ["sqlite", {}],
        ["redis over TCP", { REDIS_URL: redis.url }],
      ] as const) {
        const dir = await mkdtemp(join(tmpdir(), "clawrun-bench-hb-"));
        dirs.push(dir);
        rows.push(await run(label, { ...env }, dir, extend));
      }
    }
  } finally {
    await redis.stop();
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
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

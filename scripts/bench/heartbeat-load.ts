import { writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import pino from "pino";
import { heartbeatSecret } from "../../src/protocol/derive-key";
import { signatureHeaders } from "../../src/protocol/signing";
import { createAppContext } from "../../src/server/compose/context";
import { errorResponse } from "../../src/server/http/errors";
import { handleHeartbeatRequest } from "../../src/server/http/heartbeat-handler";
import { INITIAL_STATE } from "../../src/server/sandbox/state-cell";
import { requesterConnection } from "../../src/server/store/redis/client";
import { RedisStore } from "../../src/server/store/redis/store";
import { TcpRequester } from "../../src/server/store/redis/tcp-requester";
import { startRedisServer } from "../../tests/support/redis-server";
import { CountingRequester } from "../../tests/support/store-cost";
import { benchSource } from "./bench-source";

/**
 * 100 heartbeats a second for 60 s through the heartbeat route (production handler behind a
 * Node HTTP server on loopback: size limit, per-sandbox signature, schema, store, policy) with
 * the Redis store over TCP (a throwaway redis-server). Heartbeats are sent open-loop on a
 * fixed schedule (a slow answer does not slow the sender), all signed for one real running
 * sandbox as its sidecar signs them (a sidecar sends one a minute: this is the route's and the
 * store's throughput, not a realistic sidecar). Reports latency
 * p50/p99/max and the store requests and commands per heartbeat, counted on the client.
 *   npm run bench -- heartbeat-load      (BENCH_RATE per second, BENCH_SECONDS)
 */

const RATE = Number(process.env.BENCH_RATE ?? 100);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 60);
const MASTER = "bench-master-secret-0123456789abcdef";

const ANCHOR_SECONDS = Math.min(SECONDS, 10);

/** The same schedule against a bare Node HTTP server that reads the body and answers 200. */
async function anchor(): Promise<number[]> {
  const bare = createServer((req, res) => {
    req.resume();
    req.on("end", () => res.end("{}"));
  });
  await new Promise<void>((r) => bare.listen(0, "127.0.0.1", () => r()));
  const target = `http://127.0.0.1:${(bare.address() as AddressInfo).port}/`;
  try {
    const t0 = performance.now();
    const ms = await Promise.all(
      Array.from({ length: RATE * ANCHOR_SECONDS }, async (_, i) => {
        const wait = t0 + (i * 1000) / RATE - performance.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        const t = performance.now();
        const res = await fetch(target, { method: "POST", body: "{}" });
        await res.arrayBuffer();
        return performance.now() - t;
      }),
    );
    return ms.sort((a, b) => a - b);
  } finally {
    bare.close();
  }
}

async function main(): Promise<void> {
  const redis = await startRedisServer();
  const dir = await mkdtemp(join(tmpdir(), "clawrun-bench-hbload-"));
  writeFileSync(join(dir, "clawrun.json"), "{}");
  const tcp = new TcpRequester(redis.url);
  const counting = new CountingRequester(tcp);
  const ctx = await createAppContext({
    source: benchSource(dir, { CLAWRUN_SECRET: MASTER, REDIS_URL: redis.url }),
    logger: pino({ level: "silent" }),
    // The same adapter the app builds for REDIS_URL, with a counter on its requests.
    wrapStore: () =>
      new RedisStore(
        requesterConnection(counting, "tcp", () => tcp.close()),
        {
          instance: "bench",
        },
      ),
  });
  const sandbox = await ctx.provider.create({ timeoutMs: 3_600_000, ports: [3000, 3001] });
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const request = new Request(`http://127.0.0.1${req.url}`, {
      method: "POST",
      headers: req.headers as Record<string, string>,
      body: Buffer.concat(chunks),
    });
    const { response } = await handleHeartbeatRequest(request, ctx).catch((err: unknown) => ({
      response: errorResponse(err, null),
    }));
    res.writeHead(response.status, { "content-type": "application/json" });
    res.end(await response.text());
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/heartbeat`;
  try {
    const now = Date.now();
    await ctx.store.state.compareAndSet((await ctx.store.state.get())?.version ?? 0, {
      ...INITIAL_STATE,
      status: "running",
      since: now,
      sandboxId: sandbox.id,
      sandboxCreatedAt: now,
      ttlDeadline: now + 3_600_000,
    });
    const secret = heartbeatSecret(MASTER, sandbox.id);
    let firstError = "";
    // Each heartbeat is stamped with its place in the schedule, so stamps rise in send order;
    // one that overtakes another on the way makes the older one a replay (refused, 401).
    const stampBase = Date.now();
    const beat = async (stamp: number): Promise<{ ms: number; status: number }> => {
      const body = JSON.stringify({
        sandboxId: sandbox.id,
        lastChangedAt: Date.now(),
        sandboxCreatedAt: now,
        root: sandbox.root,
        daemonStatus: "running",
        daemonRestarts: 0,
      });
      const t = performance.now();
      const res = await fetch(url, {
        method: "POST",
        body,
        headers: {
          "content-type": "application/json",
          ...signatureHeaders(secret, body, stampBase + stamp),
        },
      });
      const text = await res.text();
      if (res.status !== 200 && !firstError) firstError = `${res.status} ${text.slice(0, 200)}`;
      return { ms: performance.now() - t, status: res.status };
    };
    for (let i = 0; i < 50; i++) await beat(i); // warm-up: scripts loaded, JIT warm
    const requests0 = counting.requests;
    const commands0 = counting.commands;
    const total = RATE * SECONDS;
    const t0 = performance.now();
    const results = await Promise.all(
      Array.from({ length: total }, async (_, i) => {
        const wait = t0 + (i * 1000) / RATE - performance.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        return beat(50 + Math.round((i * 1000) / RATE));
      }),
    );
    const elapsed = (performance.now() - t0) / 1000;
    const ms = results.map((r) => r.ms).sort((a, b) => a - b);
    const pct = (p: number, xs = ms) =>
      (xs[Math.min(xs.length - 1, Math.floor(p * xs.length))] ?? 0).toFixed(2);
    const bare = await anchor();
    const answers = new Map<number, number>();
    for (const r of results) answers.set(r.status, (answers.get(r.status) ?? 0) + 1);
    const answered = [...answers].map(([status, n]) => `${n} × ${status}`).join(", ");
    console.log(
      `${total} heartbeats at ${RATE}/s in ${elapsed.toFixed(1)} s through the heartbeat route (redis over TCP, loopback)\n`,
    );
    console.log(
      `anchor, same run: a bare Node HTTP server in this process at the same rate for ${ANCHOR_SECONDS} s: p50 ${pct(0.5, bare)} ms, p99 ${pct(0.99, bare)} ms\n`,
    );
    if (firstError) console.log(`first answer other than 200: ${firstError}\n`);
    console.log("| p50 ms | p99 ms | max ms | answers | store requests / hb | commands / hb |");
    console.log("| ------ | ------ | ------ | ------- | ------------------- | ------------- |");
    console.log(
      `| ${pct(0.5)} | ${pct(0.99)} | ${(ms.at(-1) ?? 0).toFixed(2)} | ${answered} | ${((counting.requests - requests0) / total).toFixed(2)} | ${((counting.commands - commands0) / total).toFixed(2)} |`,
    );
  } finally {
    server.close();
    await sandbox.stop();
    await ctx.close();
    await redis.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});

import { writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import type { AppContext } from "../../src/server/app-context";
import { createAppContext } from "../../src/server/compose/context";
import { handleCronPost } from "../../src/server/http/cron-handler";
import { handleHeartbeatRequest } from "../../src/server/http/heartbeat-handler";
import type { RouteResult } from "../../src/server/http/route";
import { startTickLoop } from "../../src/server/tick/tick-loop";
import { type FakeQStash, startFakeQStash } from "../../tests/support/fake-qstash";
import { freePort } from "../../tests/support/free-port";
import { benchSource } from "./bench-source";

/**
 * A sleeping agent's cron job with no timer in the server (Vercel's Hobby plan): one-shot
 * wakes through QStash (a local server speaking its API, calls verified by the real Receiver)
 * against the anchor, the local tick loop a machine runs, in the same run on the same
 * machine. Each round the agent is put to sleep and the next occurrence of a job every 20 s
 * wakes it (local provider, echo agent). Reported: how late /api/cron was called after the
 * planned wake time, and how late the job's message reached the agent after its due time.
 *   npx tsx scripts/bench/scheduled-wake.ts     (BENCH_ROUNDS=<n>, default 5)
 */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const JOB = { name: "bench", schedule: "*/20 * * * * *", message: "scheduled bench" };
const LEAD_S = 5;

/** Heartbeats and scheduled wakes served like the routes do, follow-ups run after answering. */
async function serve(
  ctx: () => AppContext,
  calls: number[],
): Promise<{ url: string; server: Server }> {
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers.set(k, v);
    const request = new Request(`http://127.0.0.1${req.url}`, {
      method: "POST",
      headers,
      body: Buffer.concat(chunks),
    });
    const path = req.url ?? "";
    if (path.startsWith("/api/cron")) calls.push(Date.now());
    const result: RouteResult = path.startsWith("/api/cron")
      ? await handleCronPost(request, ctx())
      : await handleHeartbeatRequest(request, ctx());
    const response = result instanceof Response ? result : result.response;
    res.writeHead(response.status, Object.fromEntries(response.headers));
    res.end(Buffer.from(await response.arrayBuffer()));
    if (!(result instanceof Response)) await result.followUp?.().catch(() => undefined);
  });
  const port = await freePort();
  await new Promise<void>((r) => server.listen(port, "127.0.0.1", () => r()));
  return { url: `http://127.0.0.1:${port}`, server };
}

async function run(mode: "qstash" | "local timer", qstash: FakeQStash) {
  const dir = await mkdtemp(join(tmpdir(), "clawrun-bench-cron-"));
  writeFileSync(
    join(dir, "clawrun.json"),
    JSON.stringify({ sandbox: { cronWakeLeadTime: LEAD_S }, cron: [JOB] }),
  );
  const calls: number[] = [];
  let ctx: AppContext | null = null;
  const { url, server } = await serve(() => ctx as AppContext, calls);
  ctx = await createAppContext({
    source: benchSource(dir, {
      CLAWRUN_PUBLIC_URL: url,
      ...(mode === "qstash" ? qstash.env : {}),
    }),
    logger: pino({ level: "silent" }),
  });
  const loop = mode === "local timer" ? startTickLoop(ctx.manager, ctx.timings, ctx.logger) : null;
  if (!loop) await ctx.manager.tick(); // a first request's lazy tick plans the first wake
  const rows: { callLateMs: number | null; deliveredLateMs: number }[] = [];
  const seen = new Set<string>();
  try {
    while (rows.length < ROUNDS) {
      const delivered = (await ctx.store.events.list(200)).find(
        (e) =>
          e.type === "message.delivered" &&
          /cron:bench:\d+/.test(e.message) &&
          !seen.has(e.message),
      );
      if (!delivered) {
        await new Promise((r) => setTimeout(r, 100));
        continue;
      }
      seen.add(delivered.message);
      const dueAt = Number(/cron:bench:(\d+)/.exec(delivered.message)?.[1]);
      const wakeAt = dueAt - LEAD_S * 1000;
      const call = calls.find((t) => t >= wakeAt - 1000 && t <= dueAt);
      rows.push({
        callLateMs: call === undefined ? null : call - wakeAt,
        deliveredLateMs: delivered.at - dueAt,
      });
      await ctx.manager.sleep("bench: back to sleep for the next occurrence");
    }
  } finally {
    loop?.stop();
    const state = await ctx.manager.getState();
    if (state.value.sandboxId) await ctx.manager.sleep("bench done").catch(() => undefined);
    await ctx.close();
    server.close();
    await rm(dir, { recursive: true, force: true });
  }
  return rows;
}

function stats(values: number[]): string {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0;
  return `${at(0.5).toFixed(0)} / ${(sorted.at(-1) ?? 0).toFixed(0)}`;
}

async function main() {
  const qstash = await startFakeQStash();
  try {
    const results = [];
    for (const mode of ["local timer", "qstash"] as const)
      results.push({ mode, rows: await run(mode, qstash) });
    console.log(
      `a sleeping agent's cron job (every 20 s, woken ${LEAD_S} s before), ${ROUNDS} rounds each; ms, median / max\n`,
    );
    console.log(
      "| woken by                   | /api/cron called after the planned wake | message at the agent after the due time |",
    );
    console.log(
      "| -------------------------- | --------------------------------------- | --------------------------------------- |",
    );
    for (const { mode, rows } of results) {
      const calls = rows.flatMap((r) => (r.callLateMs === null ? [] : [r.callLateMs]));
      console.log(
        `| ${(mode === "qstash" ? "QStash one-shot (no timer)" : "local tick loop (anchor)").padEnd(26)} | ${(calls.length ? stats(calls) : "n/a (no call)").padEnd(39)} | ${stats(rows.map((r) => r.deliveredLateMs)).padEnd(39)} |`,
      );
    }
  } finally {
    await qstash.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

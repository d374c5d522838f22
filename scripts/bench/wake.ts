import { performance } from "node:perf_hooks";
import { type ClawrunServer, startClawrun } from "../../tests/support/clawrun-server";
import { waitFor } from "../../tests/support/free-port";
import { instanceStatus, operatorGet, sendMessage } from "../../tests/support/messages";
import { ensureNextBuild } from "../../tests/support/next-build";
import { startVercelSandboxEmulator } from "../../tests/support/vercel-sandbox-emulator";
import { spawnAnchor } from "./spawn-anchor";

/**
 * Message → agent for a SLEEPING instance, against the production server (real sidecar, echo
 * agent, sqlite): the 202 ack latency and each wake phase, median and p95 over BENCH_WAKES
 * (default 20) wakes, for each provider in BENCH_PROVIDERS (default: local, and vercel in
 * both modes through the real SDK against the API emulator, which runs the same local
 * processes behind it — so the difference is the SDK's and the API's own overhead per phase).
 * Each round puts the agent to sleep through the operator API first, so every message
 * restores from a snapshot (or resumes the persistent sandbox). The anchor, measured in the same
 * run (one spawn just before each wake, so both see the same load): a bare Node HTTP server
 * spawned until it listens (spawn-anchor.ts); the last line gives each provider's message →
 * agent median as a multiple of its median.
 *
 * Each message comes after BENCH_REST_MS (default 3000) of sleep, as a real wake follows at
 * least `activeDuration` of rest: the local provider boots its next warm Node 2 s after the
 * last use (docs/local-provider.md, "Warm Node"); BENCH_REST_MS=0 measures back-to-back wakes.
 * The bench looks for the delivery every 250 ms only, so that its own requests do not compete
 * with the wake for the server's CPU (phases are timed by the server's events, not by polls).
 *   npx tsx scripts/bench/wake.ts
 */
const WAKES = Number(process.env.BENCH_WAKES ?? 20);
const REST_MS = Number(process.env.BENCH_REST_MS ?? 3_000);
const PROVIDERS = (process.env.BENCH_PROVIDERS ?? "local,vercel-snapshot,vercel-persistent")
  .split(",")
  .filter(Boolean);

type Event = { type: string; at: number; details: Record<string, unknown> };
const PHASES = [
  "ack",
  "lock",
  "restore",
  "provision",
  "sidecar start",
  "daemon healthy",
  "delivery",
  "message → agent",
] as const;

async function oneWake(
  server: ClawrunServer,
  i: number,
): Promise<Record<(typeof PHASES)[number], number>> {
  const stop = await fetch(`${server.url}/api/sandbox/stop`, {
    method: "POST",
    headers: { authorization: `Bearer ${server.secrets.admin}` },
  });
  if (stop.status !== 202) throw new Error(`stop answered ${stop.status}: ${await stop.text()}`);
  await waitFor("sleeping", async () => (await instanceStatus(server)) === "sleeping", 30_000, 50);
  await new Promise((r) => setTimeout(r, REST_MS));

  const id = `bench-${i}`;
  const sentAt = Date.now();
  const t0 = performance.now();
  const res = await sendMessage(server, { id, conversation: "bench", text: `wake ${i}` });
  const ack = performance.now() - t0;
  if (res.status !== 202) throw new Error(`expected 202, got ${res.status}`);

  const find = async () => {
    const { events } = await operatorGet<{ events: Event[] }>(
      server,
      "/api/sandbox/events?limit=20",
    );
    const replied = events.find(
      (e) => e.type === "message.delivered" && e.details.messageId === id,
    );
    const running = events.find((e) => e.type === "status.running");
    return replied && running ? { replied, running } : null;
  };
  const { replied, running } = await waitFor("the delivery", find, 30_000, 250);
  const t = running.details.timings as Record<string, number>;
  return {
    ack,
    lock: t.lockMs ?? 0,
    restore: t.createMs ?? 0,
    provision: t.provisionMs ?? 0,
    "sidecar start": t.sidecarStartMs ?? 0,
    "daemon healthy": t.healthyMs ?? 0,
    delivery: replied.at - running.at,
    "message → agent": replied.at - sentAt,
  };
}

function stats(values: number[]): { p50: number; p95: number } {
  const s = [...values].sort((a, b) => a - b);
  const at = (p: number) => s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? 0;
  return { p50: at(0.5), p95: at(0.95) };
}

async function measure(provider: string, anchor: number[]): Promise<Record<string, number>[]> {
  const emulator = provider.startsWith("vercel") ? await startVercelSandboxEmulator() : null;
  const sandbox = emulator
    ? { activeDuration: 600, provider: "vercel", vercel: { mode: provider.split("-")[1] } }
    : { activeDuration: 600 };
  const server = await startClawrun({ config: { sandbox }, env: emulator?.env ?? {} });
  try {
    await sendMessage(server, { id: "warm-up", conversation: "bench", text: "first start" });
    await waitFor("running", async () => (await instanceStatus(server)) === "running", 60_000);
    const rows: Record<string, number>[] = [];
    for (let i = 0; i < WAKES; i++) {
      // One anchor spawn next to each wake: on a shared machine the load drifts within a run.
      anchor.push(...(await spawnAnchor(1)));
      rows.push(await oneWake(server, i));
    }
    return rows;
  } finally {
    await server.stop();
    await emulator?.close();
  }
}

async function main() {
  ensureNextBuild();
  const results = new Map<string, Record<string, number>[]>();
  const anchor: number[] = [];
  for (const p of PROVIDERS) results.set(p, await measure(p, anchor));
  console.log(
    `wake on message: ${WAKES} wakes each, each after ${REST_MS} ms asleep (echo agent, sqlite); median / p95 ms\n`,
  );
  console.log(`| phase            | ${PROVIDERS.map((p) => p.padEnd(19)).join(" | ")} |`);
  console.log(`| ---------------- | ${PROVIDERS.map(() => "-".repeat(19)).join(" | ")} |`);
  for (const phase of PHASES) {
    const cells = PROVIDERS.map((p) => {
      const { p50, p95 } = stats((results.get(p) ?? []).map((r) => r[phase] as number));
      return `${p50.toFixed(0)} / ${p95.toFixed(0)}`.padEnd(19);
    });
    console.log(`| ${phase.padEnd(16)} | ${cells.join(" | ")} |`);
  }
  const floor = stats(anchor);
  console.log(
    `\nanchor, same run: bare Node spawn → listening ${floor.p50.toFixed(0)} / ${floor.p95.toFixed(0)} ms (${anchor.length} spawns)`,
  );
  for (const p of PROVIDERS) {
    const { p50 } = stats((results.get(p) ?? []).map((r) => r["message → agent"] as number));
    console.log(`${p}: message → agent p50 = ${(p50 / floor.p50).toFixed(1)}× the anchor`);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

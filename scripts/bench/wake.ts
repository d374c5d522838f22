import { performance } from "node:perf_hooks";
import { type ClawrunServer, startClawrun } from "../../tests/support/clawrun-server";
import { waitFor } from "../../tests/support/free-port";
import { instanceStatus, operatorGet, sendMessage } from "../../tests/support/messages";
import { ensureNextBuild } from "../../tests/support/next-build";

/**
 * Message → agent for a SLEEPING instance, against the production server (local provider,
 * real sidecar, echo agent, sqlite): the 202 ack latency and each wake phase, median and
 * p95 over BENCH_WAKES (default 20) wakes. Each round puts the agent to sleep through the
 * operator API first, so every message restores from a snapshot.
 *   npx tsx scripts/bench/wake.ts
 */
const WAKES = Number(process.env.BENCH_WAKES ?? 20);

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
    const replied = events.find((e) => e.type === "message.replied" && e.details.messageId === id);
    const running = events.find((e) => e.type === "status.running");
    return replied && running ? { replied, running } : null;
  };
  const { replied, running } = await waitFor("the delivery", find, 30_000, 25);
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

async function main() {
  ensureNextBuild();
  const server = await startClawrun({ config: { sandbox: { activeDuration: 600 } } });
  try {
    await sendMessage(server, { id: "warm-up", conversation: "bench", text: "first start" });
    await waitFor("running", async () => (await instanceStatus(server)) === "running", 30_000);
    const rows: Record<string, number>[] = [];
    for (let i = 0; i < WAKES; i++) rows.push(await oneWake(server, i));
    console.log(
      `wake on message: ${WAKES} wakes from a snapshot (local provider, echo agent, sqlite)\n`,
    );
    console.log("| phase            | median ms | p95 ms |");
    console.log("| ---------------- | --------- | ------ |");
    for (const phase of PHASES) {
      const { p50, p95 } = stats(rows.map((r) => r[phase] as number));
      console.log(
        `| ${phase.padEnd(16)} | ${p50.toFixed(0).padStart(9)} | ${p95.toFixed(0).padStart(6)} |`,
      );
    }
  } finally {
    await server.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { openclawNpmCache } from "../../tests/openclaw/openclaw-cache";
import { type ClawrunServer, startClawrun } from "../../tests/support/clawrun-server";
import { startFakeOpenAI } from "../../tests/support/fake-openai";
import { waitFor } from "../../tests/support/free-port";
import { instanceStatus, operatorGet, sendMessage } from "../../tests/support/messages";
import { ensureNextBuild } from "../../tests/support/next-build";
import { startReplyReceiver } from "../../tests/support/reply-receiver";

/**
 * OpenClaw woken by a message, against the production server (local provider, real sidecar,
 * the real openclaw package, a local fake model that answers at once): each phase of
 * wake-to-reply, median and p95 over BENCH_WAKES (default 10) wakes from a snapshot, and the
 * snapshot itself (size, time to take). Reported once: the first start (which builds the
 * OpenClaw layer), the layer build itself, and a first start on the warm layer (operator
 * "start fresh": no state, the layer already built).
 *   npx tsx scripts/bench/openclaw.ts
 * The npm cache is $CLAWRUN_OPENCLAW_NPM_CACHE, else ~/.cache/clawrun/npm-openclaw
 * (tests/openclaw/openclaw-cache.ts).
 */
const WAKES = Number(process.env.BENCH_WAKES ?? 10);
const MODEL_KEY = "sk-bench-model-key";

type Event = { type: string; at: number; details: Record<string, unknown> };
const PHASES = [
  "restore",
  "layer (verify, mount)",
  "provision",
  "sidecar up",
  "gateway listening",
  "gateway ready",
  "model reply",
  "message → reply",
] as const;
type Row = Record<(typeof PHASES)[number], number>;

async function events(server: ClawrunServer): Promise<Event[]> {
  return (await operatorGet<{ events: Event[] }>(server, "/api/sandbox/events?limit=50")).events;
}

/** Puts the agent to sleep through the operator API; returns the snapshot's time and size. */
async function sleep(server: ClawrunServer): Promise<{ ms: number; bytes: number }> {
  const stop = await fetch(`${server.url}/api/sandbox/stop`, {
    method: "POST",
    headers: { authorization: `Bearer ${server.secrets.admin}` },
  });
  if (stop.status !== 202) throw new Error(`stop answered ${stop.status}: ${await stop.text()}`);
  await waitFor(
    "sleeping",
    async () => (await instanceStatus(server)) === "sleeping",
    300_000,
    200,
  );
  const slept = (await events(server)).find((e) => e.type === "status.sleeping");
  if (!slept) throw new Error("no status.sleeping event after the stop");
  const { snapshotId, timings } = slept.details as {
    snapshotId: string;
    timings: { snapshotMs: number };
  };
  const du = execFileSync("du", ["-sb", join(server.stateDir, "snapshots", snapshotId)], {
    encoding: "utf8",
  });
  return { ms: timings.snapshotMs, bytes: Number(du.split("\t")[0]) };
}

/** One message to the sleeping agent, until its reply is recorded. */
async function wake(server: ClawrunServer, i: number): Promise<Row> {
  const id = `bench-${i}`;
  const sentAt = Date.now();
  const res = await sendMessage(server, { id, conversation: "bench", text: `wake ${i}` });
  if (res.status !== 202) throw new Error(`expected 202, got ${res.status}`);
  const found = async () => {
    const list = await events(server);
    const replied = list.find((e) => e.type === "message.replied" && e.details.messageId === id);
    const running = list.find((e) => e.type === "status.running");
    return replied && running ? { replied, running } : null;
  };
  // 20 min: a cold first start (layer build + gateway) took over 10 min at load ~25 here.
  const { replied, running } = await waitFor("the reply", found, 20 * 60_000, 250);
  const t = running.details.timings as Record<string, number>;
  const sidecarUp = (t.sidecarStartMs ?? 0) + (t.sidecarUpMs ?? 0);
  return {
    restore: t.createMs ?? 0,
    "layer (verify, mount)": t.layerMs ?? 0,
    provision: t.provisionMs ?? 0,
    "sidecar up": sidecarUp,
    "gateway listening": (t.daemonListeningMs ?? 0) - (t.sidecarUpMs ?? 0),
    "gateway ready": (t.healthyMs ?? 0) - (t.daemonListeningMs ?? 0),
    "model reply": replied.at - running.at,
    "message → reply": replied.at - sentAt,
  };
}

/** Operator "start fresh" (no state, warm layer), then one message: phases as for a wake. */
async function freshStart(server: ClawrunServer): Promise<Row> {
  const res = await fetch(`${server.url}/api/sandbox/start`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${server.secrets.admin}`,
      "content-type": "application/json",
    },
    body: JSON.stringify({ fresh: true }),
  });
  if (res.status !== 202)
    throw new Error(`start fresh answered ${res.status}: ${await res.text()}`);
  const startedAt = Date.now();
  await waitFor("running", async () => (await instanceStatus(server)) === "running", 600_000, 200);
  const id = "bench-fresh";
  const sent = await sendMessage(server, { id, conversation: "fresh", text: "hello" });
  if (sent.status !== 200) throw new Error(`expected an inline reply, got ${sent.status}`);
  const list = await events(server);
  const running = list.find((e) => e.type === "status.running");
  const t = (running?.details.timings ?? {}) as Record<string, number>;
  return {
    restore: t.createMs ?? 0,
    "layer (verify, mount)": t.layerMs ?? 0,
    provision: t.provisionMs ?? 0,
    "sidecar up": (t.sidecarStartMs ?? 0) + (t.sidecarUpMs ?? 0),
    "gateway listening": (t.daemonListeningMs ?? 0) - (t.sidecarUpMs ?? 0),
    "gateway ready": (t.healthyMs ?? 0) - (t.daemonListeningMs ?? 0),
    "model reply": Date.now() - (running?.at ?? startedAt),
    "message → reply": Date.now() - startedAt,
  };
}

function stats(values: number[]): { p50: number; p95: number } {
  const s = [...values].sort((a, b) => a - b);
  const at = (p: number) => s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? 0;
  return { p50: at(0.5), p95: at(0.95) };
}

function table(title: string, rows: Record<string, number>[], keys: readonly string[]): void {
  console.log(`\n${title}\n`);
  console.log("| phase             | median s | p95 s  |");
  console.log("| ----------------- | -------- | ------ |");
  for (const k of keys) {
    const { p50, p95 } = stats(rows.map((r) => r[k] as number));
    const s = (ms: number) => (ms / 1000).toFixed(1);
    console.log(`| ${k.padEnd(17)} | ${s(p50).padStart(8)} | ${s(p95).padStart(6)} |`);
  }
}

async function main() {
  ensureNextBuild();
  const fake = await startFakeOpenAI({ apiKey: MODEL_KEY, models: ["fake-model"] });
  let server: ClawrunServer | null = null;
  const receiver = await startReplyReceiver(() => server?.secrets.webhook ?? "");
  server = await startClawrun({
    config: {
      agent: {
        type: "openclaw",
        provider: "openai-compatible",
        baseUrl: fake.baseUrl,
        model: "fake-model",
        apiKey: { fromEnv: "BENCH_MODEL_KEY" },
        npmCacheDir: openclawNpmCache(),
      },
      // Sleep is the bench's choice (operator stop), never an idle timer mid-measurement.
      sandbox: { activeDuration: 3_600 },
      // OpenClaw calls the fake model through ClawRun's gateway, which bills only priced models.
      modelGateway: { prices: { "fake-model": { input: 1, output: 2 } } },
      channels: { generic: { replyUrl: receiver.url } },
    },
    env: { BENCH_MODEL_KEY: MODEL_KEY },
  });
  try {
    const t0 = performance.now();
    const first = await wake(server, 0);
    const firstMs = performance.now() - t0;
    const built = (await events(server)).find((e) => e.type === "layer.built");
    const layerBuildMs = Number(built?.details.ms ?? Number.NaN);
    await sleep(server);
    const warm = await freshStart(server);
    const snaps: { ms: number; bytes: number }[] = [];
    const rows: Row[] = [];
    for (let i = 1; i <= WAKES; i++) {
      snaps.push(await sleep(server));
      rows.push(await wake(server, i));
      process.stderr.write(
        `wake ${i}/${WAKES}: ${(rows.at(-1)?.["message → reply"] ?? 0) / 1000} s\n`,
      );
    }
    console.log(
      `OpenClaw (real package) on the local provider, fake model, ${WAKES} wakes from a snapshot`,
    );
    console.log(
      `\nfirst start (cold layer): message → reply ${(firstMs / 1000).toFixed(1)} s; layer build ${(layerBuildMs / 1000).toFixed(1)} s (layer phase ${(first["layer (verify, mount)"] / 1000).toFixed(1)} s), gateway listening ${(first["gateway listening"] / 1000).toFixed(1)} s, then ready ${(first["gateway ready"] / 1000).toFixed(1)} s, first reply ${(first["model reply"] / 1000).toFixed(1)} s`,
    );
    table("first start on the warm layer (start fresh → reply), by phase", [warm], PHASES);
    table("wake to reply, by phase", rows, PHASES);
    const size = stats(snaps.map((s) => s.bytes));
    table(
      "snapshot (operator stop: snapshot + stop)",
      snaps.map((s) => ({ take: s.ms })),
      ["take"],
    );
    console.log(
      `\nsnapshot size: median ${(size.p50 / 1024 / 1024).toFixed(2)} MiB, p95 ${(size.p95 / 1024 / 1024).toFixed(2)} MiB (restore time is the "restore" phase above)`,
    );
  } finally {
    await server.stop();
    await receiver.stop();
    await fake.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

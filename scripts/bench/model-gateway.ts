/**
 * Gateway overhead: the same local model server (tests/support/fake-openai) called directly
 * and through ClawRun's /api/model/v1 on the real production server, interleaved in one run so
 * both see the same machine load. Non-streamed: p50/p90 of the whole call. Streamed: p50 of
 * time to the first byte of the body (first SSE chunk). A third row is the anchor for the
 * framework's own cost: a bare Next route that answers at once (GET /api/health?live=1) against
 * a bare GET to the model server, so what the gateway adds beyond Next's per-request cost shows.
 * Needs `npm run build` (or a test run).
 */

import { startClawrun } from "../../tests/support/clawrun-server";
import { startFakeOpenAI } from "../../tests/support/fake-openai";
import { waitFor } from "../../tests/support/free-port";
import { currentModelCredential } from "../../tests/support/model-credential";
import { ensureNextBuild } from "../../tests/support/next-build";

const N = Number(process.env.BENCH_N) || 200;
const KEY = "sk-bench";

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? Number.NaN;
};

async function timed(url: string, auth: string, stream: boolean): Promise<number> {
  const body = JSON.stringify({
    model: "gpt-4o-mini",
    max_tokens: 50,
    stream,
    messages: [{ role: "user", content: "hello bench" }],
  });
  const t0 = performance.now();
  const res = await fetch(`${url}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${auth}` },
    body,
  });
  if (res.status !== 200) throw new Error(`${url}: HTTP ${res.status} ${await res.text()}`);
  if (!stream) {
    await res.text();
    return performance.now() - t0;
  }
  const reader = res.body?.getReader();
  if (!reader) throw new Error("no body");
  await reader.read();
  const ttft = performance.now() - t0;
  while (!(await reader.read()).done) {}
  return ttft;
}

/** A GET answered at once (the anchor row): whole call. */
async function timedGet(url: string, auth: string): Promise<number> {
  const t0 = performance.now();
  const res = await fetch(url, { headers: { authorization: `Bearer ${auth}` } });
  if (res.status !== 200) throw new Error(`${url}: HTTP ${res.status} ${await res.text()}`);
  await res.text();
  return performance.now() - t0;
}

async function main() {
  ensureNextBuild();
  const model = await startFakeOpenAI({ apiKey: KEY, models: ["gpt-4o-mini"] });
  const server = await startClawrun({
    config: {
      agent: {
        type: "command",
        command: "node",
        args: ["-e", "require('http').createServer((q,s)=>s.end('ok')).listen(process.env.PORT)"],
        model: {
          provider: "openai-compatible",
          baseUrl: model.baseUrl,
          model: "gpt-4o-mini",
          apiKey: { fromEnv: "BENCH_UPSTREAM_KEY" },
        },
      },
      modelGateway: { budget: { daily: 1_000, monthly: 10_000 } },
    },
    env: { BENCH_UPSTREAM_KEY: KEY },
  });
  try {
    const admin = { authorization: `Bearer ${server.secrets.admin}`, origin: server.url };
    await fetch(`${server.url}/api/sandbox/start`, { method: "POST", headers: admin });
    await waitFor(
      "the sandbox to run",
      async () => {
        const r = await fetch(`${server.url}/api/sandbox`, { headers: admin });
        const j = (await r.json()) as { instance: { status: string; sandboxId: string | null } };
        return j.instance.status === "running" ? j.instance.sandboxId : null;
      },
      120_000,
    );
    const gw = `${server.url}/api/model/v1`;
    const cred = await currentModelCredential(server);
    if (!cred) throw new Error("no sandbox is running");
    // Warm both paths (route compilation, connections, the store's prepared statements).
    for (let i = 0; i < 20; i++) {
      await timed(model.baseUrl, KEY, false);
      await timed(gw, cred, false);
      await timed(gw, cred, true);
      await timedGet(`${model.baseUrl}/models`, KEY);
      await timedGet(`${server.url}/api/health?live=1`, "");
    }
    const rows: [string, number[], number[]][] = [];
    {
      const direct: number[] = [];
      const bare: number[] = [];
      for (let i = 0; i < N; i++) {
        direct.push(await timedGet(`${model.baseUrl}/models`, KEY));
        bare.push(await timedGet(`${server.url}/api/health?live=1`, ""));
      }
      rows.push(["anchor: bare Next route vs bare GET to the model server", direct, bare]);
    }
    for (const stream of [false, true]) {
      const direct: number[] = [];
      const via: number[] = [];
      for (let i = 0; i < N; i++) {
        direct.push(await timed(model.baseUrl, KEY, stream));
        via.push(await timed(gw, cred, stream));
      }
      rows.push([
        stream ? "streamed, time to first chunk" : "non-streamed, whole call",
        direct,
        via,
      ]);
    }
    console.log(
      `store: sqlite; ${N} calls per row, interleaved; load ${(await import("node:os"))
        .loadavg()
        .map((x) => x.toFixed(1))
        .join(" ")}`,
    );
    console.log(
      "| call | direct p50 ms | via ClawRun p50 ms | added p50 ms | direct p90 | via ClawRun p90 |",
    );
    console.log("| --- | --- | --- | --- | --- | --- |");
    for (const [name, d, v] of rows) {
      const f = (x: number) => x.toFixed(2);
      console.log(
        `| ${name} | ${f(pct(d, 50))} | ${f(pct(v, 50))} | ${f(pct(v, 50) - pct(d, 50))} | ${f(pct(d, 90))} | ${f(pct(v, 90))} |`,
      );
    }
  } finally {
    await server.stop();
    await model.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

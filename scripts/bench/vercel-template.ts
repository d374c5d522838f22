import { randomBytes } from "node:crypto";
import { performance } from "node:perf_hooks";
import { deliverOverHttp } from "../../src/server/agents/http-delivery";
import type { Agent } from "../../src/server/agents/types";
import type { LifecycleEvent } from "../../src/server/domain/events";
import type { LayerRecipe } from "../../src/server/layers/types";
import { type LifecycleHarness, lifecycleHarness } from "../../tests/support/lifecycle-harness";
import { startVercelSandboxEmulator } from "../../tests/support/vercel-sandbox-emulator";

/**
 * The Vercel provider's two ways to sleep an agent with a layer (issue 23), through the real
 * @vercel/sandbox SDK against the Vercel Sandbox API emulator (whose sessions are local
 * sandboxes, so what is timed is ClawRun + SDK + HTTP + the emulator's own work; real Vercel
 * adds network round trips and VM boot):
 * - snapshot mode with a template: the layer's template snapshot made once; each wake creates
 *   the sandbox from it and unpacks the agent's state archive from the store;
 * - persistent mode: the named sandbox stopped and resumed with everything in it.
 * The layer is synthetic: a daemon script and a 20 MiB runtime file (random, incompressible).
 * State sizes: a fresh agent, then 5 MiB and 50 MiB of random bytes (worst case for gzip);
 * 50 MiB is over the default 8 MiB archive cap, so it is measured both as the full-snapshot
 * fallback and as an archive with the cap raised to 64 MiB. BENCH_WAKES (default 3) sleep/wake
 * cycles each; medians. API calls: requests the emulator received in each phase.
 *   npx tsx scripts/bench/vercel-template.ts
 */

const WAKES = Number(process.env.BENCH_WAKES ?? 3);
const RUNTIME_BYTES = 20 * 1024 * 1024;

const daemonScript = `
const http = require("http");
http.createServer((q, s) => { q.resume(); q.on("end", () => {
  s.setHeader("content-type", "application/json"); s.end(JSON.stringify({ reply: "ok" })); }); })
  .listen(process.env.PORT);`;

const build = [
  `mkdir -p bin && cat > bin/daemon.js <<'CLAWRUN_EOF'\n${daemonScript}\nCLAWRUN_EOF`,
  `head -c ${RUNTIME_BYTES} /dev/urandom > runtime.bin`,
];
const recipe: LayerRecipe = {
  name: "bench",
  inputs: { version: "1" },
  build,
  mountAt: ".clawrun/layer",
};
// Without a template (persistent mode) the daemon installs its layer itself, like OpenClaw's launcher.
const install = `mkdir -p .clawrun/layer && (cd .clawrun/layer && ${build.map((b) => `{ ${b}\n}`).join(" && ")})`;
const agent: Agent = {
  name: "bench-layered",
  deliveryTimeoutMs: 10_000,
  files: async () => [],
  layer: () => recipe,
  daemon: () => ({
    command: "sh",
    args: [
      "-c",
      `[ -f .clawrun/layer/bin/daemon.js ] || ${install}\nexec node .clawrun/layer/bin/daemon.js`,
    ],
    env: {},
    port: 3000,
  }),
  deliver: (door, message, signal) => deliverOverHttp(door, "/message", message, "json", signal),
};

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s[Math.floor((s.length - 1) / 2)] as number) : Number.NaN;
};

async function main() {
  const emulator = await startVercelSandboxEmulator();
  const stamps: number[] = [];
  const push = emulator.requests.push.bind(emulator.requests);
  emulator.requests.push = (...items) => {
    for (const _ of items) stamps.push(Date.now());
    return push(...items);
  };
  const calls = (from: number, to: number) => stamps.filter((t) => t >= from && t <= to).length;
  const rows: string[] = [];
  const row = (cells: (string | number)[]) => rows.push(`| ${cells.join(" | ")} |`);
  row([
    "mode",
    "state",
    "saved as",
    "sleep ms (calls)",
    "wake ms (calls)",
    "create ms (calls)",
    "state restore ms (calls)",
    "provision+sidecar ms",
    "ready ms",
    "saved size MiB",
  ]);
  row(["---", "---", "---", "---", "---", "---", "---", "---", "---", "---"]);
  const firsts: string[] = [];

  const cases: { mode: "snapshot" | "persistent"; mib: number; cap?: number }[] = [
    { mode: "snapshot", mib: 0 },
    { mode: "persistent", mib: 0 },
    { mode: "snapshot", mib: 5 },
    { mode: "persistent", mib: 5 },
    { mode: "snapshot", mib: 50 },
    { mode: "snapshot", mib: 50, cap: 64 },
    { mode: "persistent", mib: 50 },
  ];
  for (const c of cases) {
    let h: LifecycleHarness | null = null;
    try {
      h = await lifecycleHarness({
        agent,
        config: {
          instance: { name: `bench-${c.mode}-${randomBytes(3).toString("hex")}` },
          sandbox: {
            provider: "vercel",
            activeDuration: 600,
            vercel: { mode: c.mode, ...(c.cap ? { maxStateArchiveMiB: c.cap } : {}) },
          },
        },
        env: emulator.env,
      });
      const x = h;
      const events = async (type: string): Promise<LifecycleEvent[]> => x.events(type);
      let t0 = Date.now();
      let p0 = performance.now();
      const first = await x.manager.wake({ reason: "bench", trigger: "operator" });
      if (first.status !== "running") throw new Error(`first start: ${JSON.stringify(first)}`);
      const firstMs = performance.now() - p0;
      const built = (await events("layer.built"))[0];
      const buildMs = Number(built?.details.ms ?? 0);
      firsts.push(
        `${c.mode}${c.cap ? ` (cap ${c.cap} MiB)` : ""}, ${c.mib} MiB: first start ${Math.round(firstMs)} ms, ${calls(t0, Date.now())} API calls` +
          (built
            ? `; of which the template make ${buildMs} ms, ${calls(built.at - buildMs, built.at)} calls`
            : "; the layer installed by the daemon inside the sandbox"),
      );
      if (c.mib > 0) {
        const sandbox = await x.provider.get((await x.status()).sandboxId as string);
        const r = await sandbox.runCommand({
          cmd: "sh",
          args: [
            "-c",
            `mkdir -p work && head -c ${c.mib * 1024 * 1024} /dev/urandom > work/state.bin`,
          ],
        });
        if (r.exitCode !== 0) throw new Error(`writing the state: ${r.stderr}`);
      }
      const sleeps: number[] = [];
      const sleepCalls: number[] = [];
      const wakes: number[] = [];
      const wakeCalls: number[] = [];
      const creates: number[] = [];
      const createCalls: number[] = [];
      const restores: number[] = [];
      const restoreCalls: number[] = [];
      const bringUps: number[] = [];
      const readies: number[] = [];
      const sizes: number[] = [];
      let savedAs = "";
      for (let i = 0; i < WAKES; i++) {
        t0 = Date.now();
        p0 = performance.now();
        const slept = await x.manager.sleep("bench");
        if (slept.status !== "sleeping") throw new Error(`sleep: ${JSON.stringify(slept)}`);
        sleeps.push(performance.now() - p0);
        sleepCalls.push(calls(t0, Date.now()));
        const snapshotId = (await x.status()).snapshotId;
        const listed = (await x.provider.listSnapshots()).find((s) => s.id === snapshotId);
        savedAs =
          c.mode === "persistent"
            ? "the stopped sandbox"
            : snapshotId?.startsWith("state_")
              ? "archive in the store"
              : "full snapshot";
        sizes.push((listed?.sizeBytes ?? Number.NaN) / 1024 / 1024);

        t0 = Date.now();
        p0 = performance.now();
        const woke = await x.manager.wake({ reason: "bench", trigger: "operator" });
        if (woke.status !== "running") throw new Error(`wake: ${JSON.stringify(woke)}`);
        const t1 = Date.now();
        wakes.push(performance.now() - p0);
        wakeCalls.push(calls(t0, t1));
        const used = (await events("layer.template-used"))[0];
        const fromTemplate = used && used.at >= t0;
        const createMs = fromTemplate
          ? Number(used.details.createMs)
          : (woke.timings.createMs ?? 0);
        const restoreMs = fromTemplate ? Number(used.details.restoreMs) : 0;
        const createEnd = fromTemplate
          ? used.at - restoreMs
          : t0 + (woke.timings.lockMs ?? 0) + createMs;
        creates.push(createMs);
        createCalls.push(calls(createEnd - createMs, createEnd));
        restores.push(restoreMs);
        restoreCalls.push(fromTemplate ? calls(createEnd, used.at) : 0);
        bringUps.push((woke.timings.provisionMs ?? 0) + (woke.timings.sidecarStartMs ?? 0));
        readies.push(woke.timings.healthyMs ?? 0);
      }
      const f = (xs: number[]) => Math.round(median(xs));
      row([
        `${c.mode}${c.mode === "snapshot" ? " + template" : ""}${c.cap ? ` (cap ${c.cap} MiB)` : ""}`,
        c.mib === 0 ? "fresh" : `${c.mib} MiB`,
        savedAs,
        `${f(sleeps)} (${f(sleepCalls)})`,
        `${f(wakes)} (${f(wakeCalls)})`,
        `${f(creates)} (${f(createCalls)})`,
        c.mode === "snapshot" && savedAs !== "full snapshot"
          ? `${f(restores)} (${f(restoreCalls)})`
          : "—",
        f(bringUps),
        f(readies),
        c.mode === "persistent" ? "—" : median(sizes).toFixed(2),
      ]);
    } finally {
      await h?.stop();
    }
  }
  await emulator.close();
  console.log(`${WAKES} sleep/wake cycles per row, medians (ms; API calls in parentheses)\n`);
  for (const r of rows) console.log(r);
  console.log("");
  for (const l of firsts) console.log(`- ${l}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

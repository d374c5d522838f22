import { randomBytes } from "node:crypto";
import { performance } from "node:perf_hooks";
import { openclawNpmCache } from "../../tests/openclaw/openclaw-cache";
import { startFakeOpenAI } from "../../tests/support/fake-openai";
import { type LifecycleHarness, lifecycleHarness } from "../../tests/support/lifecycle-harness";
import { startVercelSandboxEmulator } from "../../tests/support/vercel-sandbox-emulator";

/**
 * The real OpenClaw (pinned package) on the Vercel provider through the Vercel Sandbox API
 * emulator, once per mode (issue 23): snapshot mode builds the layer's template snapshot on
 * the first start, then sleeps into a state archive and wakes from the template; persistent
 * mode installs OpenClaw inside its named sandbox on the first start and stops/resumes it.
 * Gateway ready = OpenClaw's /readyz through the door. One run each, not a median: the first
 * start takes minutes. The npm cache is tests/openclaw/openclaw-cache.ts's.
 *   npx tsx scripts/bench/vercel-template-openclaw.ts [snapshot|persistent]
 */

const MODEL_KEY = "sk-bench-model-key";
const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

async function main() {
  const modes = process.argv.slice(2).length
    ? (process.argv.slice(2) as ("snapshot" | "persistent")[])
    : (["snapshot", "persistent"] as const);
  const emulator = await startVercelSandboxEmulator();
  const fake = await startFakeOpenAI({ apiKey: MODEL_KEY, models: ["fake-model"] });
  const stamps: number[] = [];
  const push = emulator.requests.push.bind(emulator.requests);
  emulator.requests.push = (...items) => {
    for (const _ of items) stamps.push(Date.now());
    return push(...items);
  };
  const calls = (from: number, to: number) => stamps.filter((t) => t >= from && t <= to).length;
  for (const mode of modes) {
    let h: LifecycleHarness | null = null;
    try {
      h = await lifecycleHarness({
        config: {
          instance: { name: `bench-oc-${mode}-${randomBytes(3).toString("hex")}` },
          agent: {
            type: "openclaw",
            provider: "openai-compatible",
            baseUrl: fake.baseUrl,
            model: "fake-model",
            apiKey: { fromEnv: "BENCH_MODEL_KEY" },
            npmCacheDir: openclawNpmCache(),
          },
          sandbox: { provider: "vercel", activeDuration: 3_600, vercel: { mode } },
          modelGateway: { prices: { "fake-model": { input: 1, output: 2 } } },
        },
        env: { ...emulator.env, BENCH_MODEL_KEY: MODEL_KEY },
      });
      const x = h;
      let t0 = Date.now();
      let p0 = performance.now();
      const first = await x.manager.wake({ reason: "bench", trigger: "operator" });
      if (first.status !== "running") throw new Error(`first start: ${JSON.stringify(first)}`);
      const built = (await x.events("layer.built"))[0];
      const buildMs = Number(built?.details.ms ?? 0);
      console.log(
        `\n### ${mode} mode\n\n- first start: ${s(performance.now() - p0)}, ${calls(t0, Date.now())} API calls; ready (install + gateway) ${s(first.timings.healthyMs ?? 0)}` +
          (built
            ? `; template make ${s(buildMs)} (${calls(built.at - buildMs, built.at)} calls)`
            : ""),
      );
      t0 = Date.now();
      p0 = performance.now();
      const slept = await x.manager.sleep("bench");
      if (slept.status !== "sleeping") throw new Error(`sleep: ${JSON.stringify(slept)}`);
      const snapshotId = (await x.status()).snapshotId;
      const saved = (await x.provider.listSnapshots()).find((e) => e.id === snapshotId);
      const archived = (await x.events("state.archived"))[0];
      console.log(
        `- sleep: ${s(performance.now() - p0)}, ${calls(t0, Date.now())} API calls; saved as ${
          mode === "persistent"
            ? "the stopped sandbox"
            : `${snapshotId} (${((saved?.sizeBytes ?? 0) / 1024).toFixed(0)} KiB${
                archived
                  ? `, pack ${archived.details.captureMs} ms, store ${archived.details.storeMs} ms`
                  : ""
              })`
        }`,
      );
      t0 = Date.now();
      p0 = performance.now();
      const woke = await x.manager.wake({ reason: "bench", trigger: "operator" });
      if (woke.status !== "running") throw new Error(`wake: ${JSON.stringify(woke)}`);
      const used = (await x.events("layer.template-used"))[0];
      const t = woke.timings;
      console.log(
        `- wake: ${s(performance.now() - p0)}, ${calls(t0, Date.now())} API calls; create ${s(
          used && used.at >= t0 ? Number(used.details.createMs) : (t.createMs ?? 0),
        )}${used && used.at >= t0 ? `, state restore ${s(Number(used.details.restoreMs))}` : ""}, provision ${s(t.provisionMs ?? 0)}, sidecar ${s(t.sidecarStartMs ?? 0)}, gateway listening ${s(t.daemonListeningMs ?? 0)}, ready (/readyz) ${s(t.healthyMs ?? 0)}`,
      );
    } finally {
      await h?.stop();
    }
  }
  await fake.close();
  await emulator.close();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import pino from "pino";
import { LocalProvider } from "../../src/server/providers/local/local-provider";
import type { SandboxProvider } from "../../src/server/providers/types";
import { vercelConfigSchema, vercelEnvSchema } from "../../src/server/providers/vercel/config";
import { VercelProvider } from "../../src/server/providers/vercel/vercel-provider";
import { startVercelSandboxEmulator } from "../../tests/support/vercel-sandbox-emulator";

/**
 * The provider calls a wake and a sleep make, timed one by one: the local provider, and the
 * vercel provider through @vercel/sandbox and the Vercel Sandbox API emulator (whose sessions
 * are local sandboxes). The difference is what the SDK, HTTP and the emulator add per call;
 * real Vercel adds network round trips and VM boot on top. Medians and maxima of BENCH_RUNS
 * runs (default 10).
 *   npx tsx scripts/bench/provider-calls.ts
 */

const RUNS = Number(process.env.BENCH_RUNS ?? 10);
const logger = pino({ level: "silent" });
const PHASES = [
  "create",
  "writeFiles (64 KiB)",
  "runCommand",
  "runCommand detached",
  "readFile",
  "extendTimeout",
  "snapshot",
  "create from snapshot",
  "stop",
  "listSnapshots",
  "deleteSnapshot",
] as const;
type Phase = (typeof PHASES)[number];

async function measure(provider: SandboxProvider): Promise<Record<Phase, number[]>> {
  const times = Object.fromEntries(PHASES.map((p) => [p, [] as number[]])) as Record<
    Phase,
    number[]
  >;
  const timed = async <T>(phase: Phase, fn: () => Promise<T>): Promise<T> => {
    const t0 = performance.now();
    const value = await fn();
    times[phase].push(performance.now() - t0);
    return value;
  };
  const payload = Buffer.alloc(64 * 1024, 7);
  for (let i = 0; i < RUNS; i++) {
    const s = await timed("create", () =>
      provider.create({ timeoutMs: 120_000, ports: [3000, 3001] }),
    );
    await timed("writeFiles (64 KiB)", () =>
      s.writeFiles([{ path: "data/blob", content: payload }]),
    );
    await timed("runCommand", () => s.runCommand("true"));
    await timed("runCommand detached", () =>
      s.runCommand({ cmd: "sleep", args: ["30"], detached: true }),
    );
    await timed("readFile", () => s.readFile("data/blob"));
    await timed("extendTimeout", () => s.extendTimeout(1_000));
    const snap = await timed("snapshot", () => s.snapshot());
    const r = await timed("create from snapshot", () =>
      provider.create({ snapshotId: snap.id, timeoutMs: 120_000, ports: [3000, 3001] }),
    );
    await timed("stop", () => r.stop());
    await s.stop();
    await timed("listSnapshots", () => provider.listSnapshots());
    await timed("deleteSnapshot", () => provider.deleteSnapshot(snap.id));
  }
  return times;
}

const stat = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return { median: sorted[Math.floor(sorted.length / 2)] ?? 0, max: sorted.at(-1) ?? 0 };
};

async function main(): Promise<void> {
  const stateDir = await mkdtemp(join(tmpdir(), "clawrun-bench-calls-"));
  const emulator = await startVercelSandboxEmulator();
  try {
    const local = await measure(new LocalProvider({ stateDir, logger }));
    const vercel = await measure(
      new VercelProvider({
        config: vercelConfigSchema.parse({}),
        env: vercelEnvSchema.parse(emulator.env),
        instance: "bench",
        logger,
      }),
    );
    const ms = (n: number) => `${n.toFixed(1)} ms`.padStart(10);
    console.log(`${RUNS} runs each; median / max\n`);
    console.log(`${"call".padEnd(22)}${"local".padStart(22)}${"vercel via emulator".padStart(24)}`);
    for (const phase of PHASES) {
      const l = stat(local[phase]);
      const v = stat(vercel[phase]);
      console.log(`${phase.padEnd(22)}${ms(l.median)} /${ms(l.max)}${ms(v.median)} /${ms(v.max)}`);
    }
    console.log(`\nrequests the emulator did not know: ${emulator.unknownRequests.length}`);
  } finally {
    await emulator.close();
    await rm(stateDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});

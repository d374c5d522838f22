import { spawn } from "node:child_process";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { lazyTick } from "../../src/server/tick/lazy-tick";
import { postMessage } from "../support/fault-agents";
import { Acknowledged, expectRecovered } from "../support/fault-checks";
import { waitFor } from "../support/free-port";
import {
  type HarnessOptions,
  type LifecycleHarness,
  lifecycleHarness,
} from "../support/lifecycle-harness";
import { type RedisServer, startRedisServer } from "../support/redis-server";
import {
  startVercelSandboxEmulator,
  type VercelSandboxEmulator,
} from "../support/vercel-sandbox-emulator";

/**
 * Issue 22, item 3: a server killed while creating a sandbox left it running, and no other
 * server stopped it (a tick that found the dead server's lock held did not try again). Any
 * sandbox labelled with this instance that is not the current one is stopped within lease +
 * one tick of the next request, heartbeat or tick on any server, with a
 * `sandbox.orphan-stopped` event. Three servers share one store and one provider — SQLite
 * and the local provider, and as in the report Redis and the Vercel provider (the Vercel
 * Sandbox API emulator, snapshot mode so a wake creates) — one in its own process dies right
 * after the provider's create (tests/fixtures/die-after-create.ts); the two others survive.
 */

const timings = { lockLeaseMs: 1_500 };
/** Lease + one tick, with room for a loaded machine (production: 10 s lease, ≤ 30 s). */
const BOUND_MS = timings.lockLeaseMs + 6_000;

let h: LifecycleHarness | null = null;
let redis: RedisServer | null = null;
let emulator: VercelSandboxEmulator | null = null;
beforeAll(async () => {
  redis = await startRedisServer();
  emulator = await startVercelSandboxEmulator();
});
afterEach(async () => {
  await h?.stop();
  h = null;
});
afterAll(async () => {
  await emulator?.close();
  await redis?.stop();
});

let instances = 0;
const setups: { name: string; options: () => HarnessOptions }[] = [
  { name: "sqlite + local provider", options: () => ({ timings }) },
  {
    name: "redis + vercel provider (emulator)",
    options: () => ({
      timings,
      // Redis and the emulator outlive a test: each test is its own instance.
      config: {
        instance: { name: `orphan-${++instances}` },
        sandbox: { provider: "vercel", vercel: { mode: "snapshot" } },
      },
      env: { ...emulator?.env, REDIS_URL: redis?.url as string },
    }),
  },
];

/**
 * The agent has a saved state; then a server starts a wake and dies right after the create.
 * That server's process loads (seconds, through tsx) while the agent wakes and sleeps, and
 * starts its wake once the agent sleeps.
 */
async function orphanLeftByDeadServer(
  h: LifecycleHarness,
): Promise<{ orphan: string; diedAt: number }> {
  const child = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      "tests/fixtures/die-after-create.ts",
      JSON.stringify({ ...h.params, onGo: true }),
    ],
    { stdio: ["pipe", "pipe", "inherit"] },
  );
  let out = "";
  child.stdout.on("data", (d: Buffer) => {
    out += d.toString();
  });
  const exited = new Promise((r) => child.once("exit", r));
  try {
    expect((await h.manager.wake({ reason: "test", trigger: "operator" })).status).toBe("running");
    expect((await h.manager.sleep("test")).status).toBe("sleeping");
  } catch (err) {
    child.kill("SIGKILL");
    throw err;
  }
  child.stdin.write("go\n");
  await exited;
  const diedAt = Date.now();
  const orphan = (JSON.parse(out) as { id: string }).id;
  const listed = (await h.provider.list()).find((s) => s.id === orphan);
  expect(listed?.status, "the orphan runs").toBe("running");
  expect((await h.status()).status).toBe("creating");
  return { orphan, diedAt };
}

async function expectStoppedInTime(h: LifecycleHarness, orphan: string, diedAt: number) {
  const stoppedEvent = async () =>
    (await h.events("sandbox.orphan-stopped")).find((e) => e.sandboxId === orphan);
  await waitFor(
    "the orphan to be stopped by the sweep",
    async () =>
      (await stoppedEvent()) !== undefined && (await h.provider.get(orphan)).status !== "running",
    BOUND_MS,
    50,
  );
  const tookMs = Date.now() - diedAt;
  expect((await stoppedEvent())?.level).toBe("warn");
  console.log(`orphan ${orphan} stopped ${tookMs} ms after its creator died`);
}

describe.each(setups)(
  "faults: a server dies right after the provider's create ($name)",
  (setup) => {
    it("the next tick on a surviving server, which finds the dead server's lock held, tries again and stops the orphan", async () => {
      h = await lifecycleHarness(setup.options());
      const other = await h.newContext(); // a third server: its request's lazy tick
      const { orphan, diedAt } = await orphanLeftByDeadServer(h);
      await lazyTick(other); // the lock is still the dead server's for up to one lease
      await expectStoppedInTime(h, orphan, diedAt);
      await expectRecovered(h, new Acknowledged());
    }, 90_000);

    it("the next message on a surviving server repairs, stops the orphan, wakes and delivers", async () => {
      h = await lifecycleHarness(setup.options());
      const { orphan, diedAt } = await orphanLeftByDeadServer(h);
      const sent = new Acknowledged();
      const m = { id: "after-orphan", conversation: "o", text: "hi" };
      expect(await postMessage(h.url, h.webhookSecret, m, sent)).toEqual([202]);
      await expectStoppedInTime(h, orphan, diedAt);
      await expectRecovered(h, sent);
    }, 90_000);
  },
);

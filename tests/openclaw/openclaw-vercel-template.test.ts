import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, expect, it } from "vitest";
import { TemplatedProvider } from "../../src/server/sandbox/templated/templated-provider";
import { startFakeOpenAI } from "../support/fake-openai";
import { type LifecycleHarness, lifecycleHarness } from "../support/lifecycle-harness";
import {
  startVercelSandboxEmulator,
  type VercelSandboxEmulator,
} from "../support/vercel-sandbox-emulator";
import { openclawNpmCache } from "./openclaw-cache";

/**
 * The real OpenClaw on the Vercel provider in snapshot mode, through the real SDK against the
 * Vercel Sandbox API emulator (issue 23): the first start builds the OpenClaw layer into a
 * template snapshot and starts the gateway from it; the sleep saves OpenClaw's state (not the
 * layer, not the model key) as an archive in ClawRun's store; the wake creates the sandbox
 * from the template, restores the state and OpenClaw answers /readyz again on it.
 */

const MODEL_KEY = `sk-vercel-template-${randomBytes(8).toString("hex")}`;
let emulator: VercelSandboxEmulator;
let fake: Awaited<ReturnType<typeof startFakeOpenAI>>;
let h: LifecycleHarness | null = null;

beforeAll(async () => {
  emulator = await startVercelSandboxEmulator();
  fake = await startFakeOpenAI({ apiKey: MODEL_KEY, models: ["fake-model"] });
});
afterAll(async () => {
  await h?.stop();
  await fake?.close();
  await emulator?.close();
});

it("builds the template once, sleeps into a small state archive and wakes OpenClaw from the template", async () => {
  h = await lifecycleHarness({
    config: {
      instance: { name: `oc-vercel-${randomBytes(3).toString("hex")}` },
      agent: {
        type: "openclaw",
        provider: "openai-compatible",
        baseUrl: fake.baseUrl,
        model: "fake-model",
        apiKey: { fromEnv: "OC_MODEL_KEY" },
        npmCacheDir: openclawNpmCache(),
      },
      sandbox: { provider: "vercel", activeDuration: 3_600, vercel: { mode: "snapshot" } },
      modelGateway: { prices: { "fake-model": { input: 1, output: 2 } } },
    },
    env: { ...emulator.env, OC_MODEL_KEY: MODEL_KEY },
  });
  const x = h;
  const provider = x.provider as TemplatedProvider;
  expect(provider).toBeInstanceOf(TemplatedProvider);

  expect((await x.manager.wake({ reason: "test", trigger: "operator" })).status).toBe("running");
  expect(await x.events("layer.built")).toHaveLength(1);
  let sandbox = await x.provider.get((await x.status()).sandboxId as string);
  // The gateway runs from the layer baked into the template, with the state dir in the root.
  const wrapper = await sandbox.readFile(".clawrun/layer/bin/openclaw");
  expect(wrapper?.toString()).toContain("the agent state dir must be set");
  expect(await sandbox.readFile(".openclaw/openclaw.json")).not.toBeNull();

  // Just after its start the gateway may still answer prepare "busy" (or not in time on a
  // loaded machine): that is activity, and the lifecycle asks again later, as the tick would.
  const archiveId = await sleepIntoArchive(x);
  expect(archiveId).toMatch(/^state_/);
  const archive = await provider.archives.read(archiveId);
  expect(archive.length).toBeLessThan(10 * 1024 * 1024);
  const listing = execFileSync("tar", ["-tz"], { input: archive }).toString().split("\n");
  expect(listing).toContain("./.openclaw/openclaw.json");
  expect(listing.filter((f) => f.startsWith("./.clawrun/layer/"))).toEqual([]);
  expect(gunzipSync(archive).includes(MODEL_KEY)).toBe(false);

  expect((await x.manager.wake({ reason: "test", trigger: "operator" })).status).toBe("running");
  expect((await x.events("layer.template-used"))[0]?.details).toMatchObject({ archiveId });
  expect(await x.events("layer.built")).toHaveLength(1);
  sandbox = await x.provider.get((await x.status()).sandboxId as string);
  expect(await sandbox.readFile(".openclaw/openclaw.json")).not.toBeNull();
});

/**
 * Sleeps until the save is a state archive. A file the just-started gateway was still writing
 * can change while the state is packed; the save then rightly falls back to a full snapshot
 * (`state.full-snapshot`, naming the file), so the agent is woken and put to sleep again.
 */
async function sleepIntoArchive(x: LifecycleHarness): Promise<string> {
  for (let attempt = 1; ; attempt++) {
    await sleepWhenTheAgentAgrees(x);
    const id = (await x.status()).snapshotId as string;
    if (id.startsWith("state_") || attempt === 3) return id;
    const why = (await x.events("state.full-snapshot"))[0]?.message ?? "";
    console.log(`sleep ${attempt} saved a full snapshot: ${why}`);
    expect(why).toMatch(/changed while read/);
    expect((await x.manager.wake({ reason: "test", trigger: "operator" })).status).toBe("running");
  }
}

async function sleepWhenTheAgentAgrees(x: LifecycleHarness): Promise<void> {
  const reasons: string[] = [];
  const deadline = Date.now() + 4 * 60_000;
  for (;;) {
    const outcome = await x.manager.sleep("test");
    const later = outcome.status === "skipped" || outcome.status === "busy";
    if (!later || Date.now() > deadline) {
      expect(outcome, `earlier answers: ${reasons.join(" | ")}`).toMatchObject({
        status: "sleeping",
      });
      return;
    }
    reasons.push("reason" in outcome ? outcome.reason : "lifecycle lock held");
    await new Promise((r) => setTimeout(r, 2_000));
  }
}

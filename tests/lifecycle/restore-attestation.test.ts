import { cpSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { sidecarClient } from "../../src/server/door/sidecar-client";
import { type LifecycleHarness, lifecycleHarness } from "../support/lifecycle-harness";
import {
  startVercelSandboxEmulator,
  type VercelSandboxEmulator,
} from "../support/vercel-sandbox-emulator";

/**
 * Restore attestation (docs/lifecycle.md): a save brought back must be the one ClawRun
 * expects. Each case replaces the newest save with an older one behind ClawRun's back — the
 * agent's files silently rolled back — and checks ClawRun notices, says so, and never calls
 * the stale sandbox healthy.
 */

let h: LifecycleHarness | null = null;
let emulator: VercelSandboxEmulator | null = null;
beforeAll(async () => {
  emulator = await startVercelSandboxEmulator();
});
afterEach(async () => {
  await h?.stop();
  h = null;
});
afterAll(async () => {
  await emulator?.close();
});

const harness = () => h as LifecycleHarness;
const status = () => harness().status();
const mismatches = () => harness().events("restore.generation-mismatch");

/** Two saves, each holding a different note; the newest first. */
async function saveTwice(): Promise<void> {
  for (const note of ["first", "second"]) {
    expect((await harness().manager.wake({ reason: note, trigger: "operator" })).status).toBe(
      "running",
    );
    const sandbox = await harness().provider.get((await status()).sandboxId as string);
    await sandbox.writeFiles([{ path: "work/note.txt", content: note }]);
    expect((await harness().manager.sleep(note)).status).toBe("sleeping");
  }
}

/** Makes snapshot `into` hold snapshot `from`'s files (a stale copy in its place). */
function copyArchive(snapshotsDir: string, from: string, into: string): void {
  const archives = (id: string) =>
    readdirSync(join(snapshotsDir, id)).filter((n) => n.startsWith("archive"));
  for (const f of archives(into)) rmSync(join(snapshotsDir, into, f));
  for (const f of archives(from)) cpSync(join(snapshotsDir, from, f), join(snapshotsDir, into, f));
}

async function note(): Promise<string | undefined> {
  const sandbox = await harness().provider.get((await status()).sandboxId as string);
  return (await sandbox.readFile("work/note.txt"))?.toString();
}

async function runningSandboxes(): Promise<number> {
  return (await harness().provider.list()).filter((s) => s.status === "running").length;
}

const providers = [
  { name: "local", config: {}, snapshotsDir: () => join(harness().stateDir, "snapshots") },
  {
    name: "vercel (snapshot mode, emulator)",
    config: { provider: "vercel", vercel: { mode: "snapshot" } },
    snapshotsDir: () => join(emulator?.service.opts.stateDir as string, "snapshots"),
  },
] as const;

describe.each(providers)("restore attestation, $name provider", (p) => {
  it("refuses a stale snapshot in place of the newest, says so, and restores the older one honestly", async () => {
    h = await lifecycleHarness({
      config: {
        instance: { name: `attest-${p.name.split(" ")[0]}` },
        sandbox: { activeDuration: 60, ...p.config },
      },
      env: emulator?.env,
    });
    await saveTwice();
    const [newest, older] = await harness().provider.listSnapshots();
    expect((await status()).snapshotGenerations).toEqual({
      [older?.id as string]: 1,
      [newest?.id as string]: 2,
    });
    copyArchive(p.snapshotsDir(), older?.id as string, newest?.id as string);

    expect(
      (await harness().manager.wake({ reason: "a message", trigger: "operator" })).status,
    ).toBe("running");
    const [mismatch] = await mismatches();
    expect(mismatch?.details).toMatchObject({ expected: 2, found: 1, snapshotId: newest?.id });
    expect(mismatch?.message).toMatch(/found generation 1, expected generation 2/);
    const running = await status();
    expect(running.snapshotId).toBe(older?.id);
    expect(running.expectedGeneration).toBe(1);
    expect(await note()).toBe("first");
    expect(await runningSandboxes()).toBe(1);
    // The sidecar reports the generation it was restored from in its health answer too.
    const sandbox = await harness().provider.get(running.sandboxId as string);
    const secret = harness().ctx.secrets.secrets.CLAWRUN_SECRET;
    const health = await sidecarClient(sandbox, secret).health();
    expect(health.generation).toBe(1);
  }, 90_000);

  it("fails with a clear cause when the only candidate is stale, and starts nothing", async () => {
    h = await lifecycleHarness({
      config: {
        instance: { name: `attest1-${p.name.split(" ")[0]}` },
        sandbox: { activeDuration: 60, ...p.config },
      },
      env: emulator?.env,
    });
    await saveTwice();
    const [newest, older] = await harness().provider.listSnapshots();
    copyArchive(p.snapshotsDir(), older?.id as string, newest?.id as string);
    const outcome = await harness().manager.wake({
      reason: "operator: wake from this",
      trigger: "operator",
      snapshotId: newest?.id as string,
    });
    expect(outcome.status).toBe("failed");
    const failed = await status();
    expect(failed.status).toBe("failed");
    expect(failed.error).toMatch(
      new RegExp(
        `snapshot ${newest?.id} failed restore attestation \\(found generation 1, expected generation 2\\)`,
      ),
    );
    // Only the two wakes that made the saves ever ran: the stale sandbox was never "running".
    expect(await harness().events("status.running")).toHaveLength(2);
    expect(await runningSandboxes()).toBe(0);
  }, 90_000);
});

describe("restore attestation, vercel provider (persistent mode, emulator)", () => {
  it("refuses a resumed sandbox that came back with an older save, keeping the saved sandbox", async () => {
    h = await lifecycleHarness({
      config: {
        instance: { name: "attest-persistent" },
        sandbox: { activeDuration: 60, provider: "vercel", vercel: { mode: "persistent" } },
      },
      env: emulator?.env,
    });
    await saveTwice();
    const asleep = await status();
    expect(asleep.generation).toBe(2);
    const name = asleep.savedSandboxId as string;
    const service = emulator?.service;
    if (!service) throw new Error("no emulator");
    const [, olderSave] = service.snapshotsOf(name);
    // Vercel resumes the sandbox from an older save than the one its last stop made.
    service.sandbox(name).currentSnapshotId = olderSave?.id;

    const outcome = await harness().manager.wake({ reason: "a message", trigger: "operator" });
    expect(outcome.status).toBe("failed");
    const [mismatch] = await mismatches();
    expect(mismatch?.details).toMatchObject({ expected: 2, found: 1 });
    const failed = await status();
    expect(failed.error).toMatch(/resumed sandbox .* failed restore attestation/);
    // Its state is kept for the operator to decide: the saved sandbox is still the agent's.
    expect(failed.savedSandboxId).toBe(name);
    expect(await runningSandboxes()).toBe(0);
  }, 90_000);
});

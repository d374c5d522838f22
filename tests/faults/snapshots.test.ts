import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import {
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { postMessage } from "../support/fault-agents";
import { Acknowledged, expectDeliveredOnceInOrder, expectRecovered } from "../support/fault-checks";
import { waitFor } from "../support/free-port";
import { type LifecycleHarness, lifecycleHarness } from "../support/lifecycle-harness";

/**
 * Snapshots meet a full disk and damaged archives. The disk is a real size-limited file
 * system: a tmpfs mounted over the local provider's snapshot directory (this suite runs as
 * root; it fails, rather than skips, where mounting is not allowed).
 */

let h: LifecycleHarness | null = null;
const mounts: string[] = [];
afterEach(async () => {
  for (const m of mounts.splice(0)) execFileSync("umount", ["-l", m]);
  await h?.stop();
  h = null;
});
const harness = () => h as LifecycleHarness;
let seq = 0;
const msg = (conversation: string) => ({ id: `${conversation}-${++seq}`, conversation, text: "x" });

async function send(sent: Acknowledged, ...conversations: string[]) {
  for (const c of conversations)
    await postMessage(harness().url, harness().webhookSecret, msg(c), sent, Date.now() + 20_000);
  await waitFor(
    "delivery",
    async () =>
      (await harness().store.inbox.count()).pending === 0 &&
      (await harness().status()).status === "running",
    30_000,
  );
}

const snapshotDir = () => join(harness().stateDir, "snapshots");
/** The archive file of a snapshot of the local provider. */
function archiveOf(snapshotId: string): string {
  const dir = join(snapshotDir(), snapshotId);
  const file = readdirSync(dir).find((f) => f.startsWith("archive."));
  if (!file) throw new Error(`no archive in ${dir}`);
  return join(dir, file);
}

describe("faults: snapshots", () => {
  it("the disk fills during a snapshot: it fails cleanly, the sandbox keeps running, earlier snapshots are intact, and a later one succeeds", async () => {
    h = await lifecycleHarness({ timings: { lockLeaseMs: 1_500, snapshotRetryDelayMs: 100 } });
    mkdirSync(snapshotDir(), { recursive: true });
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=6m", "clawrun-full-disk", snapshotDir()]);
    mounts.push(snapshotDir());
    const sent = new Acknowledged();
    await send(sent, "f", "g");
    expect((await harness().manager.sleep("test")).status).toBe("sleeping");
    const first = (await harness().status()).snapshotId as string;
    const firstBytes = readFileSync(archiveOf(first));
    await send(sent, "f");
    // Incompressible agent data larger than the whole disk.
    const sandboxId = (await harness().status()).sandboxId as string;
    const big = join((await harness().provider.get(sandboxId)).root, "model.bin");
    writeFileSync(big, randomBytes(8 * 1024 * 1024));

    const outcome = await harness().manager.sleep("test");
    expect(outcome).toMatchObject({ status: "kept-running" });
    expect("error" in outcome && outcome.error).toMatch(/no space left|ENOSPC|write/i);
    const state = await harness().status();
    expect(state.status).toBe("running");
    expect(state.sandboxId).toBe(sandboxId);
    expect(state.snapshotId).toBe(first);
    expect((await harness().events("snapshot.attempt-failed")).length).toBeGreaterThan(0);
    // The earlier snapshot is byte for byte what it was, and no half archive is left behind.
    expect(readFileSync(archiveOf(first)).equals(firstBytes)).toBe(true);
    expect(readdirSync(snapshotDir()).filter((n) => n.startsWith("."))).toEqual([]);
    await send(sent, "g"); // still delivering meanwhile

    rmSync(big); // space returns
    expect((await harness().manager.sleep("test")).status).toBe("sleeping");
    expect((await harness().status()).snapshotId).not.toBe(first);
    await send(sent, "f");
    await expectRecovered(harness(), sent);
  }, 120_000);

  it.each([
    ["truncated", (file: string) => truncateSync(file, Math.floor(statSync(file).size / 2))],
    [
      "corrupted",
      (file: string) => {
        const bytes = readFileSync(file);
        for (let i = Math.floor(bytes.length / 3); i < bytes.length / 3 + 64; i++)
          bytes[i] = (bytes[i] ?? 0) ^ 0xff;
        writeFileSync(file, bytes);
      },
    ],
  ])(
    "a %s newest archive: the restore refuses it and falls back to the one before, with an event",
    async (_name, damage) => {
      h = await lifecycleHarness({ timings: { lockLeaseMs: 1_500 } });
      const kept = new Acknowledged();
      await send(kept, "h", "i");
      expect((await harness().manager.sleep("test")).status).toBe("sleeping");
      const older = (await harness().status()).snapshotId as string;
      const lost = new Acknowledged();
      await send(lost, "h");
      expect((await harness().manager.sleep("test")).status).toBe("sleeping");
      const newest = (await harness().status()).snapshotId as string;
      damage(archiveOf(newest));

      await send(kept, "i");
      const failed = (await harness().events("sandbox.create-failed")).find(
        (e) => e.details.snapshotId === newest,
      );
      expect(failed?.message).toMatch(/restore of snapshot/);
      const running = (await harness().events("status.running")).at(0);
      expect(running?.message).toContain(`restored from ${older}`);
      // What only the damaged snapshot held is gone; everything else is there once, in order.
      await expectDeliveredOnceInOrder(harness(), kept);
      await expectRecovered(harness(), kept);
      expect(lost.count).toBe(1);
    },
    120_000,
  );
});

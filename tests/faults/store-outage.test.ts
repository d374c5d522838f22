import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { postMessage } from "../support/fault-agents";
import { Acknowledged, expectRecovered } from "../support/fault-checks";
import { waitFor } from "../support/free-port";
import { type LifecycleHarness, lifecycleHarness } from "../support/lifecycle-harness";
import { type RedisServer, startRedisServer } from "../support/redis-server";

/**
 * The store goes away for a moment: redis-server stopped for 5 s (during a burst of messages,
 * and during a snapshot) then started again on the same port with its data; the SQLite file's
 * directory made read-only. Webhooks answer 503 while the store cannot store (the platform
 * retries), never a 2xx for a message that was not stored (docs/store.md, "Faults").
 */

let h: LifecycleHarness | null = null;
let redis: RedisServer | null = null;
const dirs: string[] = [];
const immutable: string[] = [];
afterEach(async () => {
  if (immutable.length) execFileSync("chattr", ["-i", ...immutable.splice(0)]);
  await h?.stop();
  h = null;
  await redis?.stop();
  redis = null;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const harness = () => h as LifecycleHarness;
let seq = 0;
const msg = (conversation: string) => ({ id: `${conversation}-${++seq}`, conversation, text: "x" });

/** A redis-server that keeps its data across a stop and a start on the same port. */
async function persistentRedis(): Promise<{ restartAfter(ms: number): Promise<void> }> {
  const dataDir = mkdtempSync(join(tmpdir(), "clawrun-redis-data-"));
  dirs.push(dataDir);
  redis = await startRedisServer({ dataDir });
  const port = redis.port;
  return {
    async restartAfter(ms) {
      await redis?.stop();
      redis = null;
      await new Promise((r) => setTimeout(r, ms));
      redis = await startRedisServer({ port, dataDir });
      // The app's connection comes back by itself within its reconnect delay (up to 2 s).
      await waitFor(
        "the app's store to answer again",
        () =>
          harness()
            .store.ping()
            .then(() => true),
        10_000,
      );
    },
  };
}

/** Sends `perConversation` messages in order on each conversation, the conversations in parallel. */
async function burst(
  conversations: string[],
  perConversation: number,
  sent: Acknowledged,
  statuses: number[],
) {
  await Promise.all(
    conversations.map(async (c) => {
      for (let i = 0; i < perConversation; i++) {
        const seen = await postMessage(
          harness().url,
          harness().webhookSecret,
          msg(c),
          sent,
          Date.now() + 30_000,
        );
        statuses.push(...seen);
        await new Promise((r) => setTimeout(r, 100));
      }
    }),
  );
}

describe("faults: the store goes away for a moment", () => {
  it("redis-server stopped for 5 s during a burst: 503s meanwhile, then every acknowledged message delivered once, in order", async () => {
    const server = await persistentRedis();
    h = await lifecycleHarness({
      env: { REDIS_URL: (redis as RedisServer).url },
      timings: { lockLeaseMs: 1_500 },
    });
    const sent = new Acknowledged();
    const statuses: number[] = [];
    const sending = burst(["r1", "r2", "r3"], 12, sent, statuses);
    await waitFor("the burst to be under way", async () => sent.count >= 6, 20_000, 10);
    await server.restartAfter(5_000);
    await sending;
    expect(
      statuses.filter((s) => s === 503).length,
      "503 answers while Redis was down",
    ).toBeGreaterThan(0);
    // 202: stored (queued); 200: stored and answered inline by the running agent.
    expect(
      statuses.filter((s) => s !== 200 && s !== 202 && s !== 503),
      "other answers",
    ).toEqual([]);
    expect(sent.count).toBe(36);
    await expectRecovered(harness(), sent);
  }, 120_000);

  it("redis-server stopped for 5 s during a snapshot: the sleep fails cleanly and is completed after, nothing lost", async () => {
    const server = await persistentRedis();
    h = await lifecycleHarness({
      env: { REDIS_URL: (redis as RedisServer).url },
      timings: { lockLeaseMs: 1_500 },
    });
    const sent = new Acknowledged();
    for (const c of ["p", "q", "p"])
      await postMessage(harness().url, harness().webhookSecret, msg(c), sent, Date.now() + 20_000);
    await waitFor(
      "delivery",
      async () => (await harness().store.inbox.count()).pending === 0,
      30_000,
    );
    const sleeping = harness()
      .manager.sleep("test")
      .catch((err: unknown) => err);
    await waitFor(
      "the snapshot to start",
      async () => (await harness().status()).status === "snapshotting",
      20_000,
      5,
    );
    await server.restartAfter(5_000);
    await sleeping;
    await expectRecovered(harness(), sent);
  }, 120_000);

  it("the SQLite file's directory read-only for a moment: 503 meanwhile, nothing stored, then accepted and delivered", async () => {
    h = await lifecycleHarness({ timings: { lockLeaseMs: 1_500 } });
    const sent = new Acknowledged();
    await postMessage(harness().url, harness().webhookSecret, msg("w"), sent, Date.now() + 20_000);
    await waitFor(
      "delivery",
      async () => (await harness().store.inbox.count()).pending === 0,
      30_000,
    );
    // Root ignores permission bits, so "read-only" is the immutable attribute on the directory
    // and the database files (not the shared-memory index, which SQLite maps into memory).
    const store = harness().stateDir;
    immutable.push(store, join(store, "store.db"), join(store, "store.db-wal"));
    execFileSync("chattr", ["+i", ...immutable]);
    const refused = msg("w");
    const during = await postMessage(harness().url, harness().webhookSecret, refused, sent);
    expect(during).toEqual([503]);
    execFileSync("chattr", ["-i", ...immutable.splice(0)]);
    expect(await harness().store.inbox.count()).toEqual({ pending: 0, dead: 0 }); // not stored
    const statuses = await postMessage(harness().url, harness().webhookSecret, refused, sent);
    expect(statuses).toHaveLength(1);
    expect([200, 202]).toContain(statuses[0]);
    await expectRecovered(harness(), sent);
  }, 90_000);
});

import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import IORedis from "ioredis";
import {
  type RedisConnection,
  tcpConnection,
  upstashConnection,
} from "../../../src/server/store/redis/client";
import { redisKeys } from "../../../src/server/store/redis/keys";
import { RedisStore } from "../../../src/server/store/redis/store";
import { SqliteStore } from "../../../src/server/store/sqlite/store";
import { type RedisServer, startRedisServer } from "../../support/redis-server";
import { startUpstashRestProxy } from "../../support/upstash-rest-proxy";
import { CORRUPT_IDS, type CorruptTarget, type StoreHarness } from "./kit";
import { describeStoreContract } from "./store-contract";

// ── sqlite: a real file in a temp dir ───────────────────────────────
describeStoreContract("sqlite", async () => {
  const dir = await mkdtemp(join(tmpdir(), "clawrun-store-"));
  const file = join(dir, "store.db");
  const harness: StoreHarness = {
    open: (instance, opts) => new SqliteStore(file, { instance, ...opts }),
    corrupt: async (instance, target) => {
      const [sql, key] = sqliteCorruption(instance, target);
      const db = new Database(file);
      try {
        const { changes } = db.prepare(sql).run(instance);
        if (changes < 1) throw new Error(`nothing to corrupt for ${target}`);
      } finally {
        db.close();
      }
      return key;
    },
    // The state dir sits under a regular file: the database can never be opened.
    unreachable: async (instance) => {
      const blocker = join(dir, "not-a-directory");
      await writeFile(blocker, "");
      return new SqliteStore(join(blocker, "state", "store.db"), { instance });
    },
  };
  return { harness, teardown: () => rm(dir, { recursive: true, force: true }) };
});

function sqliteCorruption(instance: string, target: CorruptTarget): [string, string] {
  const { sandboxId, messageId } = CORRUPT_IDS;
  switch (target) {
    case "state":
      return [
        `UPDATE instance_state SET value = '{"status":"exploded"}' WHERE instance = ?`,
        `sqlite:instance_state[${instance}]`,
      ];
    case "heartbeat":
      return [
        `UPDATE heartbeats SET value = 'not json' WHERE instance = ? AND sandbox_id = '${sandboxId}'`,
        `sqlite:heartbeats[${instance}/${sandboxId}]`,
      ];
    case "events":
      return [
        `UPDATE events SET value = '{"id":42}' WHERE instance = ?`,
        `sqlite:events[${instance}]`,
      ];
    case "intervals":
      return [
        `UPDATE awake_intervals SET value = '[]' WHERE instance = ?`,
        `sqlite:awake_intervals[${instance}]`,
      ];
    case "inbox":
      return [
        `UPDATE inbox SET body = '{"id":"x"}' WHERE instance = ? AND id = '${messageId}'`,
        `sqlite:inbox[${instance}/${messageId}]`,
      ];
    case "schedule":
      return [
        `UPDATE schedule SET value = '{"nextDueAt":"soon"}' WHERE instance = ?`,
        `sqlite:schedule[${instance}]`,
      ];
  }
}

// ── redis: a throwaway redis-server, over TCP and over the REST API ─
/** Writes garbage straight into redis (the store already wrote a valid value there). */
async function redisCorrupt(raw: IORedis, instance: string, target: CorruptTarget) {
  const k = redisKeys(instance);
  const { sandboxId, messageId } = CORRUPT_IDS;
  const steps: Record<CorruptTarget, () => Promise<[unknown, string]>> = {
    state: async () => [await raw.hset(k.state, "value", '{"status":"exploded"}'), k.state],
    heartbeat: async () => [
      await raw.hset(k.heartbeat(sandboxId), "value", "not json"),
      k.heartbeat(sandboxId),
    ],
    events: async () => [await raw.lset(k.events, 0, '{"id":42}'), k.events],
    intervals: async () => [await raw.zadd(k.awake, 1.5, "[]"), k.awake],
    inbox: async () => [
      await raw.hset(k.queue("inbox").message(messageId), "body", '{"id":"x"}'),
      k.queue("inbox").message(messageId),
    ],
    schedule: async () => [await raw.set(k.schedule, '{"nextDueAt":"soon"}'), k.schedule],
  };
  const [, key] = await steps[target]();
  return key;
}

function redisContract(
  name: string,
  connect: (server: RedisServer) => Promise<{
    connection(): RedisConnection;
    /** A connection to a backend that answered once and then went away. */
    vanishing(): Promise<{ connection: RedisConnection; takeDown(): Promise<void> }>;
    stop(): Promise<void>;
  }>,
) {
  describeStoreContract(name, async () => {
    const server = await startRedisServer();
    const transport = await connect(server);
    const raw = new IORedis(server.url, { lazyConnect: true });
    await raw.connect();
    const harness: StoreHarness = {
      open: (instance, opts) => new RedisStore(transport.connection(), { instance, ...opts }),
      corrupt: (instance, target) => redisCorrupt(raw, instance, target),
      unreachable: async (instance) => {
        const { connection, takeDown } = await transport.vanishing();
        const store = new RedisStore(connection, { instance });
        await store.ping();
        await takeDown();
        return store;
      },
    };
    const teardown = async () => {
      raw.disconnect();
      await transport.stop();
      await server.stop();
    };
    return { harness, teardown };
  });
}

redisContract("redis over TCP", async (server) => ({
  connection: () => tcpConnection(server.url),
  vanishing: async () => {
    const other = await startRedisServer();
    return { connection: tcpConnection(other.url), takeDown: () => other.stop() };
  },
  stop: async () => {},
}));

redisContract("redis over Upstash REST", async (server) => {
  const proxy = await startUpstashRestProxy(server.url);
  return {
    connection: () => upstashConnection(proxy.url, proxy.token),
    vanishing: async () => {
      const other = await startRedisServer();
      const otherProxy = await startUpstashRestProxy(other.url);
      return {
        connection: upstashConnection(otherProxy.url, otherProxy.token, { retries: 1 }),
        takeDown: async () => {
          await otherProxy.stop();
          await other.stop();
        },
      };
    },
    stop: () => proxy.stop(),
  };
});

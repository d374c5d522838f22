import type { Requester, UpstashRequest } from "@upstash/redis";
import IORedis from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  EVERY_OPERATION,
  freshInstance,
  heartbeat,
  state,
} from "../../../../tests/contracts/store/kit";
import { type RedisServer, startRedisServer } from "../../../../tests/support/redis-server";
import {
  startUpstashRestProxy,
  type UpstashRestProxy,
} from "../../../../tests/support/upstash-rest-proxy";
import { StoreDataError, StoreUnavailableError } from "../types";
import { requesterConnection, tcpConnection, upstashConnection } from "./client";
import { redisKeys } from "./keys";
import { RedisStore } from "./store";
import { TcpRequester } from "./tcp-requester";

/** Redis-only behaviour the shared contract cannot express: keys, round trips, transports. */
let server: RedisServer;
let proxy: UpstashRestProxy;
let raw: IORedis;

beforeAll(async () => {
  server = await startRedisServer();
  proxy = await startUpstashRestProxy(server.url);
  raw = new IORedis(server.url, { lazyConnect: true });
  await raw.connect();
});
afterAll(async () => {
  raw?.disconnect();
  await proxy?.stop();
  await server?.stop();
});

/** A TCP store whose requests (round trips) are counted. */
function countingStore(instance: string) {
  const tcp = new TcpRequester(server.url);
  const seen: UpstashRequest[] = [];
  const counting: Requester = {
    request: (req) => {
      seen.push(req);
      return tcp.request(req);
    },
  };
  const store = new RedisStore(
    requesterConnection(counting, "counted", () => tcp.close()),
    {
      instance,
    },
  );
  return { store, seen };
}

describe("redis adapter", () => {
  it("keeps every key under clawrun:<instance>:", async () => {
    const own = await startRedisServer();
    const instance = freshInstance("keys");
    const store = new RedisStore(tcpConnection(own.url), { instance });
    try {
      for (const op of Object.values(EVERY_OPERATION)) await op(store);
      const ownRaw = new IORedis(own.url);
      const keys = await ownRaw.keys("*");
      ownRaw.disconnect();
      expect(keys.length).toBeGreaterThan(5);
      for (const key of keys) expect(key.startsWith(`clawrun:${instance}:`), key).toBe(true);
    } finally {
      await store.close();
      await own.stop();
    }
  });

  it("records a heartbeat and reads the state in ONE round trip (EVAL once on NOSCRIPT)", async () => {
    const { store, seen } = countingStore(freshInstance("trips"));
    await store.state.compareAndSet(0, state());
    await raw.script("FLUSH");
    seen.length = 0;
    await store.heartbeats.record(heartbeat({ sentAt: 1 }));
    expect(seen.map((r) => String((r.body as unknown[])[0]).toLowerCase())).toEqual([
      "evalsha",
      "eval",
    ]);
    seen.length = 0;
    const result = await store.heartbeats.record(heartbeat({ sentAt: 2 }));
    expect(result).toEqual({
      fresh: true,
      previous: heartbeat({ sentAt: 1 }),
      state: { version: 1, value: state() },
    });
    expect(seen).toHaveLength(1);
    await store.close();
  });

  it("sends one request per heartbeat over REST too", async () => {
    const store = new RedisStore(upstashConnection(proxy.url, proxy.token), {
      instance: freshInstance("rest-trips"),
    });
    await store.heartbeats.record(heartbeat({ sentAt: 1 }));
    const before = proxy.requests();
    await store.heartbeats.record(heartbeat({ sentAt: 2 }));
    expect(proxy.requests() - before).toBe(1);
  });

  it("runs the REST contract through base64-encoded replies, as Upstash sends them", async () => {
    // Guards the contract run: the proxy must really encode, or decoding goes untested.
    const post = async (encoding: boolean) => {
      const res = await fetch(proxy.url, {
        method: "POST",
        headers: {
          authorization: `Bearer ${proxy.token}`,
          ...(encoding ? { "upstash-encoding": "base64" } : {}),
        },
        body: JSON.stringify(["ECHO", "héllo 🦀"]),
      });
      return (await res.json()) as { result: unknown };
    };
    expect(await post(false)).toEqual({ result: "héllo 🦀" });
    expect(await post(true)).toEqual({ result: Buffer.from("héllo 🦀").toString("base64") });
  });

  it("reports a key of the wrong redis type, or an unreadable version, as StoreDataError", async () => {
    const instance = freshInstance("wrongtype");
    const k = redisKeys(instance);
    const store = new RedisStore(tcpConnection(server.url), { instance });
    await raw.set(k.state, "not a hash");
    await expect(store.state.get()).rejects.toMatchObject({ name: "StoreDataError", key: k.state });
    await expect(store.state.compareAndSet(0, state())).rejects.toBeInstanceOf(StoreDataError);
    await raw.del(k.state);
    await raw.hset(k.state, "version", "abc", "value", JSON.stringify(state()));
    await expect(store.state.get()).rejects.toMatchObject({ name: "StoreDataError", key: k.state });
    await expect(store.state.compareAndSet(0, state())).rejects.toMatchObject({ key: k.state });
    await store.close();
  });

  it("fails fast while Redis is down and reconnects by itself when it is back", async () => {
    const own = await startRedisServer();
    // Timeouts far beyond the test timeout: only failing fast can make these calls return.
    const store = new RedisStore(
      tcpConnection(own.url, { connectTimeoutMs: 120_000, commandTimeoutMs: 120_000 }),
      { instance: freshInstance("reconnect") },
    );
    await store.state.compareAndSet(0, state());
    await own.stop();
    await expect(store.state.get()).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(store.locks.acquire("l", "a", 1_000)).rejects.toBeInstanceOf(
      StoreUnavailableError,
    );

    const back = await startRedisServer({ port: own.port });
    try {
      const deadline = Date.now() + 10_000;
      let state_: unknown;
      while (Date.now() < deadline) {
        state_ = await store.state.get().catch((err: unknown) => err);
        if (!(state_ instanceof StoreUnavailableError)) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      // The new server is empty (no persistence): reachable again, and honest about it.
      expect(state_).toBeNull();
    } finally {
      await store.close();
      await back.stop();
    }
  });

  it("reports a Redis that was never reachable as StoreUnavailableError", async () => {
    const gone = await startRedisServer();
    await gone.stop(); // its port is now closed
    const store = new RedisStore(tcpConnection(gone.url), { instance: freshInstance("never") });
    await expect(store.ping()).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(store.state.get()).rejects.toBeInstanceOf(StoreUnavailableError);
    await store.close();
  });

  it("reports a wrong REST token as StoreUnavailableError without leaking the command", async () => {
    const store = new RedisStore(upstashConnection(proxy.url, "wrong-token"), {
      instance: freshInstance("token"),
    });
    const err = await store.heartbeats.record(heartbeat()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreUnavailableError);
    expect((err as Error).message).toMatch(/WRONGPASS/);
    expect((err as Error).message).not.toContain("/sandbox");
    expect((err as Error).message).not.toContain("wrong-token");
  });

  it("describes itself without credentials", () => {
    const tcp = tcpConnection("redis://user:s3cret@127.0.0.1:1/2");
    expect(tcp.description).toBe("redis redis://127.0.0.1:1/2");
    const rest = upstashConnection("https://example.upstash.io", "tok-s3cret");
    expect(rest.description).toBe("upstash https://example.upstash.io");
  });
});

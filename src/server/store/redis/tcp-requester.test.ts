import { errors } from "@upstash/redis";
import IORedis from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshInstance } from "../../../../tests/contracts/store/kit";
import { type RedisServer, startRedisServer } from "../../../../tests/support/redis-server";
import { requesterConnection } from "./client";
import { executeUpstashRequest, TcpRequester } from "./tcp-requester";

/** The REST-shaped mapping onto a real connection, as the @upstash/redis client relies on it. */
let server: RedisServer;
let conn: IORedis;

beforeAll(async () => {
  server = await startRedisServer();
  conn = new IORedis(server.url, { lazyConnect: true });
  await conn.connect();
});
afterAll(async () => {
  conn?.disconnect();
  await server?.stop();
});

describe("executeUpstashRequest", () => {
  it("runs a single command and answers { result } or { error }", async () => {
    const k = freshInstance("single");
    expect(await executeUpstashRequest(conn, { body: ["SET", k, 1] })).toEqual({ result: "OK" });
    expect(await executeUpstashRequest(conn, { body: ["GET", k] })).toEqual({ result: "1" });
    expect(await executeUpstashRequest(conn, { body: ["INCR", k] })).toEqual({ result: 2 });
    expect(await executeUpstashRequest(conn, { body: ["GET", `${k}-missing`] })).toEqual({
      result: null,
    });
    const noscript = await executeUpstashRequest(conn, { body: ["EVALSHA", "0".repeat(40), 0] });
    expect(noscript).toEqual({ error: expect.stringMatching(/^NOSCRIPT/) });
  });

  it("answers HGETALL flat, as the REST API does", async () => {
    const k = freshInstance("hash");
    await conn.hset(k, "a", "1", "b", "2");
    expect(await executeUpstashRequest(conn, { body: ["HGETALL", k] })).toEqual({
      result: ["a", "1", "b", "2"],
    });
  });

  it("answers a pipeline with one entry per command, errors in place", async () => {
    const k = freshInstance("pipe");
    const reply = await executeUpstashRequest(conn, {
      path: ["pipeline"],
      body: [
        ["SET", k, "v"],
        ["INCR", k],
        ["GET", k],
      ],
    });
    expect(reply).toEqual([
      { result: "OK" },
      { error: expect.stringContaining("not an integer") },
      { result: "v" },
    ]);
  });

  it("runs multi-exec atomically and rejects an aborted transaction as a whole", async () => {
    const k = freshInstance("multi");
    expect(
      await executeUpstashRequest(conn, {
        path: ["multi-exec"],
        body: [
          ["SET", k, "1"],
          ["INCR", k],
        ],
      }),
    ).toEqual([{ result: "OK" }, { result: 2 }]);
    const aborted = executeUpstashRequest(conn, {
      path: ["multi-exec"],
      body: [["SET", `${k}-x`, "1"], ["SET"]],
    });
    await expect(aborted).rejects.toBeInstanceOf(errors.UpstashError);
    expect(await conn.exists(`${k}-x`)).toBe(0);
  });

  it("rejects malformed requests", async () => {
    await expect(executeUpstashRequest(conn, { body: [] })).rejects.toBeInstanceOf(
      errors.UpstashError,
    );
    await expect(
      executeUpstashRequest(conn, { path: ["subscribe"], body: ["x"] }),
    ).rejects.toBeInstanceOf(errors.UpstashError);
  });
});

describe("TcpRequester under the @upstash/redis client", () => {
  it("falls back from EVALSHA to EVAL on NOSCRIPT and returns raw replies", async () => {
    const requester = new TcpRequester(server.url);
    const { redis, close } = requesterConnection(requester, "test", () => requester.close());
    await conn.script("FLUSH");
    const script = redis.createScript("return {ARGV[1], tonumber(ARGV[2]), false}");
    // "123" stays text: automatic JSON parsing is off on the custom-requester client too.
    expect(await script.exec([], ["123", "7"])).toEqual(["123", 7, null]);
    expect(await script.exec([], ['{"a":1}', "8"])).toEqual(['{"a":1}', 8, null]);
    expect(await redis.exec(["GET", freshInstance("nil")])).toBeNull();
    await close();
  });
});

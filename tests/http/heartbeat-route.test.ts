import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { heartbeatSecret } from "../../src/protocol/derive-key";
import { sign, signatureHeaders } from "../../src/protocol/signing";
import { SqliteStore } from "../../src/server/store/sqlite/store";
import { type ClawrunServer, startClawrun } from "../support/clawrun-server";
import { startRedisServer } from "../support/redis-server";

let server: ClawrunServer;
beforeAll(async () => {
  server = await startClawrun();
});
afterAll(async () => {
  await server?.stop();
});

const body = (over: Record<string, unknown> = {}) =>
  JSON.stringify({
    sandboxId: "sbx_route_test",
    lastChangedAt: Date.now(),
    sandboxCreatedAt: Date.now() - 1_000,
    root: "/home/user",
    daemonStatus: "running",
    daemonRestarts: 0,
    ...over,
  });

function post(raw: string, headers: Record<string, string>) {
  return fetch(`${server.url}/api/heartbeat`, {
    method: "POST",
    body: raw,
    headers: { "content-type": "application/json", ...headers },
  });
}

const secretFor = (sandboxId: string) => heartbeatSecret(server.secrets.clawrun, sandboxId);

async function expectError(res: Response, status: number, message: RegExp) {
  expect(res.status).toBe(status);
  const json = (await res.json()) as { error: { code: string; message: string } };
  expect(json.error.message).toMatch(message);
}

async function storedHeartbeat(sandboxId: string) {
  const store = new SqliteStore(join(server.stateDir, "store.db"), { instance: "clawrun" });
  try {
    return await store.heartbeats.get(sandboxId);
  } finally {
    await store.close();
  }
}

describe("POST /api/heartbeat over HTTP (production server)", () => {
  it("accepts a correctly signed heartbeat and tells a sandbox that is not the instance's to stop", async () => {
    const raw = body({ sandboxId: "sbx_accepted" });
    const res = await post(raw, signatureHeaders(secretFor("sbx_accepted"), raw));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      action: "stop",
      reason: "not the instance's current sandbox",
    });
    expect(await storedHeartbeat("sbx_accepted")).toMatchObject({
      sandboxId: "sbx_accepted",
      daemonStatus: "running",
    });
  });

  it.each([
    ["no signature headers", () => ({}), 401, /missing x-clawrun-signature/],
    [
      "no timestamp",
      (raw: string) => ({ "x-clawrun-signature": sign(secretFor("sbx_route_test"), 1, raw) }),
      401,
      /missing x-clawrun-timestamp/,
    ],
    [
      "a forged signature",
      () => signatureHeaders("not-the-secret-at-all-0123456789", body()),
      401,
      /does not match/,
    ],
    [
      "the master secret itself",
      (raw: string) => signatureHeaders(server.secrets.clawrun, raw),
      401,
      /does not match/,
    ],
    [
      "another sandbox's secret",
      (raw: string) => signatureHeaders(secretFor("sbx_other"), raw),
      401,
      /does not match/,
    ],
    [
      "a stale timestamp",
      (raw: string) => signatureHeaders(secretFor("sbx_route_test"), raw, Date.now() - 6 * 60_000),
      401,
      /more than 5 minutes/,
    ],
  ])("rejects %s and stores nothing", async (_name, headers, status, message) => {
    const raw = body();
    await expectError(await post(raw, headers(raw)), status, message);
    expect(await storedHeartbeat("sbx_route_test")).toBeNull();
  });

  it("rejects a replayed heartbeat", async () => {
    const raw = body({ sandboxId: "sbx_replay" });
    const headers = signatureHeaders(secretFor("sbx_replay"), raw);
    expect((await post(raw, headers)).status).toBe(200);
    const stored = await storedHeartbeat("sbx_replay");
    await expectError(await post(raw, headers), 401, /not newer/);
    expect(await storedHeartbeat("sbx_replay")).toEqual(stored);
  });

  it.each([
    ["malformed JSON", "{nope", /body: expected JSON, a heartbeat/],
    [
      "a missing sandboxId",
      JSON.stringify({ root: "/x" }),
      /sandboxId: expected a non-empty string/,
    ],
    ["a wrong type", body({ daemonRestarts: "many" }), /daemonRestarts: expected number/],
    ["an unknown status", body({ daemonStatus: "dancing" }), /daemonStatus/],
    ["an extra field", body({ extra: 1 }), /unknown key "extra"/],
  ])("rejects %s with 400 naming the field, storing nothing", async (_name, raw, message) => {
    await expectError(
      await post(raw, signatureHeaders(secretFor("sbx_route_test"), raw)),
      400,
      message,
    );
    expect(await storedHeartbeat("sbx_route_test")).toBeNull();
  });

  it("rejects a body over 64 KB with 413", async () => {
    const raw = body({ root: "x".repeat(70 * 1024) });
    await expectError(
      await post(raw, signatureHeaders(secretFor("sbx_route_test"), raw)),
      413,
      /larger than 65536 bytes/,
    );
  });
});

describe("POST /api/heartbeat when the store is down", () => {
  it("answers 503 so the sidecar retries at its next tick", async () => {
    const redis = await startRedisServer();
    const down = await startClawrun({ env: { REDIS_URL: redis.url } });
    try {
      const raw = body();
      const headers = signatureHeaders(
        heartbeatSecret(down.secrets.clawrun, "sbx_route_test"),
        raw,
      );
      await redis.stop();
      const res = await fetch(`${down.url}/api/heartbeat`, { method: "POST", body: raw, headers });
      await expectError(res, 503, /state store is unavailable/);
      expect(res.headers.get("retry-after")).toBe("5");
    } finally {
      await down.stop();
    }
  });
});

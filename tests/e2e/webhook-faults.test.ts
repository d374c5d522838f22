import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sign, signatureHeaders } from "../../src/protocol/signing";
import { type ClawrunServer, startClawrun } from "../support/clawrun-server";
import { waitFor } from "../support/free-port";
import { eventsOf, instanceStatus, operatorGet, sendMessage } from "../support/messages";
import { startRedisServer } from "../support/redis-server";

type Inbox = {
  counts: { pending: number; dead: number };
  dead: { id: string; attempts: number; lastError: string }[];
};

describe("generic webhook: bad input changes nothing", () => {
  let server: ClawrunServer;
  beforeAll(async () => {
    server = await startClawrun();
  });
  afterAll(async () => {
    await server?.stop();
  });

  const post = (raw: string, headers: Record<string, string>, channel = "generic") =>
    fetch(`${server.url}/api/webhooks/${channel}`, {
      method: "POST",
      body: raw,
      headers: { "content-type": "application/json", ...headers },
    });
  const valid = JSON.stringify({ id: "m1", conversation: "c", text: "hi" });

  it.each([
    ["unsigned", valid, () => ({}), 401, /missing x-clawrun-timestamp/],
    [
      "wrongly signed",
      valid,
      () => signatureHeaders("some-other-secret-0123456789", valid),
      401,
      /does not match/,
    ],
    [
      "stale (6 minutes old)",
      valid,
      () => signatureHeaders(server.secrets.webhook, valid, Date.now() - 6 * 60_000),
      401,
      /more than 5 minutes/,
    ],
    [
      "signed with a tampered body",
      valid,
      () => ({
        "x-clawrun-timestamp": String(Date.now()),
        "x-clawrun-signature": sign(server.secrets.webhook, Date.now(), "{}"),
      }),
      401,
      /does not match/,
    ],
    [
      "not JSON",
      "{nope",
      (raw: string) => signatureHeaders(server.secrets.webhook, raw),
      400,
      /expected JSON/,
    ],
    [
      "missing text",
      JSON.stringify({ id: "m1", conversation: "c" }),
      (raw: string) => signatureHeaders(server.secrets.webhook, raw),
      400,
      /^text: expected a string/,
    ],
    [
      "empty conversation",
      JSON.stringify({ id: "m1", conversation: "", text: "x" }),
      (raw: string) => signatureHeaders(server.secrets.webhook, raw),
      400,
      /^conversation: expected a non-empty string/,
    ],
    [
      "a numeric id",
      JSON.stringify({ id: 7, conversation: "c", text: "x" }),
      (raw: string) => signatureHeaders(server.secrets.webhook, raw),
      400,
      /^id: expected a string/,
    ],
    [
      "an unknown field",
      JSON.stringify({ id: "m1", conversation: "c", text: "x", user: "u" }),
      (raw: string) => signatureHeaders(server.secrets.webhook, raw),
      400,
      /unknown field\(s\) user/,
    ],
  ])("%s → rejected, inbox untouched", async (_name, raw, headers, status, message) => {
    const res = await post(raw, headers(raw));
    expect(res.status).toBe(status);
    expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(message);
    expect((await operatorGet<Inbox>(server, "/api/sandbox/inbox")).counts).toEqual({
      pending: 0,
      dead: 0,
    });
    expect(await instanceStatus(server)).toBe("uninitialized");
  });

  it("over 1 MB → 413", async () => {
    const raw = JSON.stringify({ id: "big", conversation: "c", text: "x".repeat(1024 * 1024) });
    const res = await post(raw, signatureHeaders(server.secrets.webhook, raw));
    expect(res.status).toBe(413);
    expect((await operatorGet<Inbox>(server, "/api/sandbox/inbox")).counts).toEqual({
      pending: 0,
      dead: 0,
    });
  });

  it("an unknown channel → 404 naming the configured ones", async () => {
    const res = await post(valid, signatureHeaders(server.secrets.webhook, valid), "telegraph");
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(
      /configured: generic/,
    );
  });
});

describe("generic webhook: a daemon that refuses deliveries", () => {
  it("retries with back-off, then moves the message to the dead-letter list with events", async () => {
    const refuse =
      "require('http').createServer((q,s)=>{s.statusCode=q.method==='POST'?500:200;s.end('no thanks')}).listen(process.env.PORT)";
    const server = await startClawrun({
      config: { agent: { type: "command", command: "node", args: ["-e", refuse] } },
      timings: { deliveryMaxAttempts: 3, deliveryRetryBaseMs: 100, heartbeatIntervalMs: 500 },
    });
    try {
      expect(
        (await sendMessage(server, { id: "doomed", conversation: "c", text: "x" })).status,
      ).toBe(202);
      await waitFor(
        "the dead letter",
        async () => (await operatorGet<Inbox>(server, "/api/sandbox/inbox")).counts.dead === 1,
        30_000,
        200,
      );
      const inbox = await operatorGet<Inbox>(server, "/api/sandbox/inbox");
      expect(inbox.counts).toEqual({ pending: 0, dead: 1 });
      expect(inbox.dead[0]).toMatchObject({
        id: "doomed",
        attempts: 3,
        lastError: expect.stringMatching(/agent answered 500: no thanks/),
      });
      expect(await eventsOf(server, "delivery.retry")).toHaveLength(2);
      expect(await eventsOf(server, "inbox.dead-letter")).toHaveLength(1);
    } finally {
      await server.stop();
    }
  });
});

describe("generic webhook: store down", () => {
  it("answers 503 so the platform retries; nothing is acknowledged", async () => {
    const redis = await startRedisServer();
    const server = await startClawrun({ env: { REDIS_URL: redis.url } });
    try {
      expect(
        (await sendMessage(server, { id: "before", conversation: "c", text: "x" })).status,
      ).toBe(202);
      await redis.stop();
      const res = await sendMessage(server, { id: "during-outage", conversation: "c", text: "x" });
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({ error: { code: "store_unavailable" } });
    } finally {
      await server.stop();
    }
  });
});

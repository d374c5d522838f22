import { afterEach, describe, expect, it } from "vitest";
import { doorsForTests } from "../../../../tests/support/door";
import {
  type FakeZeroClaw,
  fakeZeroClawReply,
  startFakeZeroClaw,
} from "../../../../tests/support/fake-zeroclaw";
import { freePort } from "../../../../tests/support/free-port";
import { AgentDeliveryError } from "../types";
import { pairedTokenHash } from "./config-file";
import {
  deliverToZeroClaw,
  parseZeroClawReply,
  zeroclawIdempotencyKey,
  zeroclawSessionId,
} from "./delivery";
import { probeZeroClaw, zeroclawHealthy } from "./health";

const TOKEN = "zc-sandbox-token";
let fake: FakeZeroClaw | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});
const start = async () => {
  fake = await startFakeZeroClaw({ pairedTokenHashes: [pairedTokenHash(TOKEN)] });
  return fake;
};
const signal = () => AbortSignal.timeout(5_000);
/** The stand-in gateway is reached the way ClawRun reaches a daemon: through the sidecar's real door. */
const doors = doorsForTests();

describe("deliverToZeroClaw", () => {
  it("posts to the webhook with the token, a per-conversation session and the message id as idempotency key", async () => {
    const zc = await start();
    const a1 = await deliverToZeroClaw(
      await doors.to(zc.baseUrl),
      TOKEN,
      { id: "m1", conversation: "telegram:42", text: "I am Zed" },
      signal(),
    );
    const b1 = await deliverToZeroClaw(
      await doors.to(zc.baseUrl),
      TOKEN,
      { id: "m2", conversation: "slack:C1", text: "other" },
      signal(),
    );
    const a2 = await deliverToZeroClaw(
      await doors.to(zc.baseUrl),
      TOKEN,
      { id: "m3", conversation: "telegram:42", text: "Who am I?" },
      signal(),
    );

    const s42 = zeroclawSessionId("telegram:42");
    expect(a1).toEqual({
      reply: fakeZeroClawReply(s42, ["I am Zed"]),
      details: { model: "fake-model" },
    });
    expect(b1.reply).toBe(fakeZeroClawReply(zeroclawSessionId("slack:C1"), ["other"]));
    expect(a2.reply).toBe(fakeZeroClawReply(s42, ["I am Zed", "Who am I?"]));

    const req = zc.requests[0];
    expect(req?.path).toBe("/webhook");
    expect(req?.query).toEqual({ agent: "clawrun" });
    expect(req?.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(req?.headers["x-idempotency-key"]).toBe("m1");
    expect(req?.headers["x-session-id"]).toBe(s42);
    expect(JSON.parse(req?.body ?? "")).toEqual({ message: "I am Zed" });
    expect(zc.processed().every((p) => p.session !== null)).toBe(true);
  });

  it("reports a redelivered message as a duplicate instead of running it twice", async () => {
    const zc = await start();
    const msg = { id: "m1", conversation: "c", text: "once" };
    await deliverToZeroClaw(await doors.to(zc.baseUrl), TOKEN, msg, signal());
    const again = await deliverToZeroClaw(await doors.to(zc.baseUrl), TOKEN, msg, signal());
    expect(again).toEqual({ reply: "", details: { duplicate: true } });
    expect(zc.processed()).toHaveLength(1);
  });

  it("turns a wrong token into AgentDeliveryError 401 without echoing the token", async () => {
    const zc = await start();
    const err = await deliverToZeroClaw(
      await doors.to(zc.baseUrl),
      "not-the-token",
      { id: "m", conversation: "c", text: "x" },
      signal(),
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AgentDeliveryError);
    expect((err as AgentDeliveryError).daemonStatus).toBe(401);
    expect((err as Error).message).toMatch(/^zeroclaw answered 401: Unauthorized/);
    expect((err as Error).message).not.toContain("not-the-token");
    expect(zc.processed()).toHaveLength(0);
  });
});

describe("request shaping", () => {
  it("hashes any conversation id into a session id ZeroClaw accepts, stably", () => {
    for (const conversation of ["telegram:42", "slack:T1/C2 thread", "ü".repeat(300)]) {
      const id = zeroclawSessionId(conversation);
      expect(id).toMatch(/^[A-Za-z0-9._-]{1,128}$/);
      expect(zeroclawSessionId(conversation)).toBe(id);
    }
    expect(zeroclawSessionId("a")).not.toBe(zeroclawSessionId("b"));
  });

  it("keeps plain message ids and hashes the rest", () => {
    expect(zeroclawIdempotencyKey("telegram:42:1001")).toBe("telegram:42:1001");
    expect(zeroclawIdempotencyKey("id with spaces")).toMatch(/^sha256-[0-9a-f]{64}$/);
  });

  it.each([
    ["nope", /not JSON/],
    [JSON.stringify({ status: "ok" }), /expected \{ "response"/],
  ])("refuses the 2xx body %s", (body, problem) => {
    const r = parseZeroClawReply(body);
    expect(r.ok ? "" : r.problem).toMatch(problem);
  });
});

describe("zeroclaw health", () => {
  it.each([
    [200, { status: "ok", paired: true, require_pairing: true }, true],
    [200, { status: "ok", paired: false, require_pairing: false }, true],
    [200, { status: "ok", paired: false, require_pairing: true }, false],
    [200, { status: "starting" }, false],
    [503, { status: "ok" }, false],
    [200, "ok", false],
  ])("status %s body %j -> %s", (status, body, ready) => {
    expect(zeroclawHealthy(status, body)).toBe(ready);
  });

  it("probes the stand-in gateway", async () => {
    const zc = await start();
    expect(await probeZeroClaw(await doors.to(zc.baseUrl), signal())).toBe(true);
    expect(
      await probeZeroClaw(await doors.to(`http://127.0.0.1:${await freePort()}`), signal()),
    ).toBe(false);
  });
});

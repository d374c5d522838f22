import { afterEach, describe, expect, it } from "vitest";
import {
  freePort,
  MemoryLog,
  sleep,
  startParent,
  type TestParent,
  waitFor,
} from "../../tests/support/sidecar-harness";
import { type HeartbeatBody, parseHeartbeatBody } from "../protocol/heartbeat";
import { verify } from "../protocol/signing";
import { Heartbeat, type HeartbeatOptions, heartbeatUrl } from "./heartbeat";

const SECRET = "hb-secret-for-tests-0123456789";
const BODY: HeartbeatBody = {
  sandboxId: "sbx_abc123",
  lastChangedAt: 1710000000000,
  sandboxCreatedAt: 1709990000000,
  root: "/home/user",
  daemonStatus: "running",
  daemonRestarts: 0,
};

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function parent(): Promise<TestParent> {
  const p = await startParent();
  cleanups.push(() => p.close());
  return p;
}

function heartbeat(url: string, opts: Partial<HeartbeatOptions> = {}) {
  const log = new MemoryLog();
  const hb = new Heartbeat({
    url: heartbeatUrl(url),
    secret: SECRET,
    intervalMs: 60_000,
    timeoutMs: 500,
    body: () => BODY,
    log,
    ...opts,
  });
  cleanups.push(() => hb.stop());
  return { hb, log };
}

describe("heartbeatUrl", () => {
  it.each([
    ["http://h:3000", "http://h:3000/api/heartbeat"],
    ["http://h:3000/", "http://h:3000/api/heartbeat"],
    ["https://h.example/clawrun", "https://h.example/clawrun/api/heartbeat"],
  ])("%s", (base, expected) => expect(heartbeatUrl(base)).toBe(expected));
});

describe("Heartbeat", () => {
  it("sends the seed's body exactly, signed so that verify() accepts it", async () => {
    const p = await parent();
    const { hb } = heartbeat(p.url);
    await hb.start();
    expect(p.received).toHaveLength(1);
    const got = p.received[0];
    if (!got) throw new Error("no heartbeat");
    expect(JSON.parse(got.raw)).toEqual(BODY);
    expect(Object.keys(JSON.parse(got.raw)).sort()).toEqual(Object.keys(BODY).sort());
    expect(parseHeartbeatBody(JSON.parse(got.raw)).ok).toBe(true);
    expect(got.headers["content-type"]).toBe("application/json");
    const headers = { get: (n: string) => (got.headers[n] as string | undefined) ?? null };
    expect(verify(SECRET, headers, got.raw, Date.now())).toMatchObject({ ok: true });
    expect(verify("wrong-secret", headers, got.raw, Date.now())).toMatchObject({ ok: false });
    expect(verify(SECRET, headers, got.raw.replace("running", "failed"), Date.now())).toEqual({
      ok: false,
      reason: "mismatch",
    });
    expect(hb.state.lastSuccess).toBe(true);
    expect(hb.state.lastTick).toBe(Number(got.headers["x-clawrun-timestamp"]));
  });

  it("carries Deployment Protection's bypass header when given, and no such header otherwise", async () => {
    const p = await parent();
    const plain = heartbeat(p.url);
    await plain.hb.start();
    plain.hb.stop();
    const { hb } = heartbeat(p.url, {
      extraHeaders: { "x-vercel-protection-bypass": "bypass-secret-1" },
    });
    await hb.start();
    expect(p.received.map((r) => r.headers["x-vercel-protection-bypass"])).toEqual([
      undefined,
      "bypass-secret-1",
    ]);
    const got = p.received[1];
    if (!got) throw new Error("no heartbeat");
    const headers = { get: (n: string) => (got.headers[n] as string | undefined) ?? null };
    expect(verify(SECRET, headers, got.raw, Date.now())).toMatchObject({ ok: true });
  });

  it("ticks every intervalMs after the immediate first one", async () => {
    const p = await parent();
    const { hb } = heartbeat(p.url, { intervalMs: 100 });
    void hb.start();
    await waitFor("4 heartbeats", () => p.received.length >= 4, 2_000);
    const first = p.received[0]?.receivedAt ?? 0;
    const fourth = p.received[3]?.receivedAt ?? 0;
    expect(fourth - first).toBeGreaterThanOrEqual(250);
  });

  it("records a non-2xx answer as a failure, logs it and succeeds on a later tick", async () => {
    const p = await parent();
    p.status = 503;
    const { hb, log } = heartbeat(p.url, { intervalMs: 100 });
    await hb.start();
    expect(hb.state.lastSuccess).toBe(false);
    expect(log.has(/WARN heartbeat rejected: HTTP 503/)).toBe(true);
    p.status = 200;
    await waitFor("recovery", () => hb.state.lastSuccess === true, 2_000);
    expect(log.has(/INFO heartbeat ok/)).toBe(true);
  });

  it("survives an unreachable parent", async () => {
    const { hb, log } = heartbeat(`http://127.0.0.1:${await freePort()}`);
    await hb.start();
    expect(hb.state).toMatchObject({ lastSuccess: false });
    expect(hb.state.lastTick).toBeGreaterThan(0);
    expect(log.has(/WARN heartbeat failed: .*ECONNREFUSED/)).toBe(true);
  });

  it("gives up on a parent that does not answer within timeoutMs", async () => {
    const p = await parent();
    p.delayMs = 2_000;
    const { hb, log } = heartbeat(p.url, { timeoutMs: 150 });
    const started = Date.now();
    await hb.start();
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(hb.state.lastSuccess).toBe(false);
    expect(log.has(/heartbeat failed: no answer within 150 ms/)).toBe(true);
  });

  it("coalesces triggers: never two requests at once, one more send with the latest body", async () => {
    const p = await parent();
    p.delayMs = 150;
    let status: HeartbeatBody["daemonStatus"] = "starting";
    const { hb } = heartbeat(p.url, { body: () => ({ ...BODY, daemonStatus: status }) });
    const first = hb.start();
    await sleep(30);
    status = "running";
    void hb.trigger();
    status = "failed";
    void hb.trigger();
    await first;
    await waitFor("second send", () => p.received.length === 2);
    await sleep(200);
    expect(p.received.map((r) => JSON.parse(r.raw).daemonStatus)).toEqual(["starting", "failed"]);
    expect(p.maxConcurrent).toBe(1);
  });

  it("sends nothing after stop()", async () => {
    const p = await parent();
    const { hb } = heartbeat(p.url, { intervalMs: 50 });
    await hb.start();
    // A slow first send (a loaded machine) lets the 50 ms interval queue one more, which
    // start() also waits for: count what was sent up to stop(), not a fixed 1.
    const sentBeforeStop = p.received.length;
    expect(sentBeforeStop).toBeGreaterThanOrEqual(1);
    hb.stop();
    await hb.trigger();
    await sleep(150);
    expect(p.received).toHaveLength(sentBeforeStop);
  });
});

import { afterEach, describe, expect, it } from "vitest";
import { startTestDoor } from "../../../../tests/support/door";
import { startFakeGateway } from "../../../../tests/support/fake-openclaw-gateway";
import { prepareAnswer, prepareOpenClawSleep, resumeOpenClaw } from "./suspend";

const TOKEN = "gateway-token-for-tests";
const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup(busyTimes = 0) {
  const gw = await startFakeGateway({ token: TOKEN, busyTimes });
  cleanups.push(() => gw.close());
  const door = await startTestDoor(`http://127.0.0.1:${gw.port}`);
  cleanups.push(() => door.close());
  return { gw, control: door.client.control(), door };
}

const signal = () => AbortSignal.timeout(10_000);

describe("OpenClaw's suspend protocol through the door (a gateway speaking the documented frames)", () => {
  it("busy, then ready with the lease until expiresAtMs; resume with its id reopens the gateway", async () => {
    const { gw, control, door } = await setup(1);
    const busy = await prepareOpenClawSleep(control, TOKEN, signal());
    expect(busy).toEqual({ ready: false, retryAfterMs: 20_000, blockers: ["1 active request"] });
    const before = Date.now();
    const ready = await prepareOpenClawSleep(control, TOKEN, signal());
    expect(ready).toMatchObject({ ready: true, suspensionId: gw.held?.suspensionId });
    const lease = (ready as { leaseMs: number }).leaseMs;
    expect(lease).toBeGreaterThan(110_000);
    expect(lease).toBeLessThanOrEqual(120_000 + (Date.now() - before));
    // Each ask is a new request id (a repeated one would renew a lease it did not take).
    const ids = gw.requests
      .filter((r) => r.method === "gateway.suspend.prepare")
      .map((r) => r.params.requestId);
    expect(new Set(ids).size).toBe(2);
    await resumeOpenClaw(
      control,
      TOKEN,
      signal(),
      (ready as { suspensionId: string }).suspensionId,
    );
    expect(gw.held).toBeNull();
    expect(gw.requests.at(-1)).toMatchObject({ method: "gateway.suspend.resume" });
    expect(door.deliveries).toBe(0);
  });

  it("a lease held by someone else is busy until it ends, not an error", async () => {
    const { control } = await setup();
    await prepareOpenClawSleep(control, TOKEN, signal());
    const second = await prepareOpenClawSleep(control, TOKEN, signal());
    expect(second).toMatchObject({
      ready: false,
      blockers: ["another gateway suspension is already prepared"],
    });
    expect((second as { retryAfterMs: number }).retryAfterMs).toBeGreaterThan(100_000);
  });

  it("resume without an id asks nothing (a restarted gateway holds no suspension)", async () => {
    const { gw, control } = await setup();
    await resumeOpenClaw(control, TOKEN, signal());
    expect(gw.requests).toEqual([]);
  });

  it("a refused connect (wrong token) is no answer: it throws, naming the stage", async () => {
    const { control } = await setup();
    await expect(prepareOpenClawSleep(control, "wrong", signal())).rejects.toThrow(
      /at connect: INVALID_REQUEST/,
    );
  });
});

describe("prepareAnswer (pure)", () => {
  it.each([
    [
      "ready",
      {
        ok: true as const,
        payload: { status: "ready", suspensionId: "s", expiresAtMs: 1_120_000 },
      },
      { ready: true, leaseMs: 120_000, suspensionId: "s" },
    ],
    [
      "ready whose lease already ended",
      { ok: true as const, payload: { status: "ready", suspensionId: "s", expiresAtMs: 999_000 } },
      { ready: true, leaseMs: 0, suspensionId: "s" },
    ],
    [
      "draining (drain mode) counts as busy",
      {
        ok: true as const,
        payload: {
          status: "draining",
          retryAfterMs: 5_000,
          blockers: [{ kind: "terminal-session" }],
        },
      },
      { ready: false, retryAfterMs: 5_000, blockers: ["terminal-session"] },
    ],
    [
      "a retryable UNAVAILABLE (start-up not finished)",
      {
        ok: false as const,
        stage: "connect" as const,
        error: { code: "UNAVAILABLE", message: "starting", retryable: true, retryAfterMs: 500 },
      },
      { ready: false, retryAfterMs: 500, blockers: ["starting"] },
    ],
  ])("%s", (_name, answer, expected) => {
    expect(prepareAnswer(answer, 1_000_000)).toEqual(expected);
  });

  it.each([
    ["an unknown status", { ok: true as const, payload: { status: "frozen" } }, /unknown shape/],
    [
      "ready without an id",
      { ok: true as const, payload: { status: "ready", expiresAtMs: 5 } },
      /unknown shape/,
    ],
    [
      "a permanent refusal",
      {
        ok: false as const,
        stage: "call" as const,
        error: { code: "FORBIDDEN", message: "missing scope" },
      },
      /at call: FORBIDDEN missing scope/,
    ],
  ])("%s throws", (_name, answer, message) => {
    expect(() => prepareAnswer(answer, 0)).toThrow(message);
  });
});

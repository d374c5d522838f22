import { afterEach, describe, expect, it } from "vitest";
import { heartbeatSecret } from "../../src/protocol/derive-key";
import { signatureHeaders } from "../../src/protocol/signing";
import { errorResponse } from "../../src/server/http/errors";
import { handleHeartbeatRequest } from "../../src/server/http/heartbeat-handler";
import {
  crashingAgent,
  hangingAgent,
  neverHealthyAgent,
  postMessage,
} from "../support/fault-agents";
import { Acknowledged, expectLegalWithinOneTick, expectNoOrphans } from "../support/fault-checks";
import { waitFor } from "../support/free-port";
import { type LifecycleHarness, lifecycleHarness } from "../support/lifecycle-harness";

/**
 * A sidecar whose clock is 10 minutes off, and daemons that never become healthy, crash in a
 * loop or hang on a delivery: each is refused or bounded, ends `failed` or dead-lettered with
 * its cause, and the inbox keeps the message.
 */

let h: LifecycleHarness | null = null;
afterEach(async () => {
  await h?.stop();
  h = null;
});
const harness = () => h as LifecycleHarness;
let seq = 0;
const msg = (conversation: string) => ({ id: `${conversation}-${++seq}`, conversation, text: "x" });

describe("faults: clock skew", () => {
  it.each([
    ["10 minutes in the future", 10 * 60_000],
    ["10 minutes in the past", -10 * 60_000],
  ])(
    "a heartbeat stamped %s is refused and changes nothing",
    async (_name, skewMs) => {
      h = await lifecycleHarness();
      // A wake that failed would leave no sandbox to sign for (once seen in a loaded run as
      // a 400 for a null sandboxId): say so here instead.
      const woke = await harness().manager.wake({ reason: "test", trigger: "operator" });
      expect(woke, JSON.stringify(woke)).toMatchObject({ status: "running" });
      await harness().setParentUp(false); // the sidecar's own heartbeats stop reaching the store
      const before = await harness().manager.getState();
      const sandboxId = before.value.sandboxId as string;
      const recorded = await harness().store.heartbeats.get(sandboxId);
      const events = (await harness().store.events.list(500)).length;
      const body = JSON.stringify({
        sandboxId,
        lastChangedAt: Date.now() + skewMs,
        sandboxCreatedAt: before.value.sandboxCreatedAt,
        root: "/",
        daemonStatus: "failed", // would stop the sandbox at once if it were believed
        daemonRestarts: 5,
      });
      const secret = heartbeatSecret(harness().params.source.CLAWRUN_SECRET as string, sandboxId);
      const request = new Request(`${harness().url}/api/heartbeat`, {
        method: "POST",
        body,
        headers: signatureHeaders(secret, body, Date.now() + skewMs),
      });
      const { response } = await handleHeartbeatRequest(request, harness().ctx).catch(
        (err: unknown) => ({ response: errorResponse(err, null) }),
      );
      expect(response.status).toBe(401);
      expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(
        /minutes/,
      );
      const after = await harness().manager.getState();
      expect(after.version).toBe(before.version);
      expect(await harness().store.heartbeats.get(sandboxId)).toEqual(recorded);
      expect((await harness().store.events.list(500)).length).toBe(events);
      expect((await harness().provider.get(sandboxId)).status).toBe("running");
    },
    60_000,
  );
});

describe("faults: daemons that misbehave", () => {
  it("a daemon that never becomes healthy: the wake ends failed with the cause, bounded, the message kept", async () => {
    h = await lifecycleHarness({
      config: { agent: neverHealthyAgent },
      timings: { healthBudgetMs: 2_000, failedRetryBaseMs: 60_000 },
    });
    const sent = new Acknowledged();
    await postMessage(harness().url, harness().webhookSecret, msg("n"), sent);
    await waitFor(
      "the failure",
      async () => (await harness().status()).status === "failed",
      30_000,
    );
    expect((await harness().status()).error).toMatch(/health|healthy/i);
    const created = (await harness().provider.list()).length;
    // Further messages within the retry backoff do not start another sandbox.
    await postMessage(harness().url, harness().webhookSecret, msg("n"), sent);
    await harness().manager.wakeAndDeliver({ reason: "test", trigger: "message" });
    expect((await harness().provider.list()).length).toBe(created);
    expect((await harness().store.inbox.count()).pending).toBe(2);
    await expectLegalWithinOneTick(harness());
    expect((await harness().status()).status).toBe("failed");
    await expectNoOrphans(harness());
  }, 60_000);

  it("a daemon that crash-loops: the supervisor gives up, the wake ends failed with the cause, the message kept", async () => {
    h = await lifecycleHarness({
      config: { agent: crashingAgent },
      sidecarTimings: { restartDelayMs: 50, probeIntervalMs: 50 },
      timings: { failedRetryBaseMs: 60_000 },
    });
    const sent = new Acknowledged();
    await postMessage(harness().url, harness().webhookSecret, msg("c"), sent);
    await waitFor(
      "the failure",
      async () => (await harness().status()).status === "failed",
      30_000,
    );
    expect((await harness().status()).error).toMatch(/restarts|exited|failed/i);
    expect((await harness().store.inbox.count()).pending).toBe(1);
    await expectLegalWithinOneTick(harness());
    expect((await harness().status()).status).toBe("failed");
    await expectNoOrphans(harness());
  }, 60_000);

  it("a daemon that hangs on delivery: bounded attempts, then a dead letter naming the cause; the message is kept", async () => {
    h = await lifecycleHarness({
      config: { agent: hangingAgent(300) },
      timings: { deliveryMaxAttempts: 3, deliveryRetryBaseMs: 100 },
    });
    const sent = new Acknowledged();
    await postMessage(harness().url, harness().webhookSecret, msg("x"), sent);
    const dead = await waitFor(
      "the dead letter",
      async () => (await harness().store.inbox.listDead(10))[0],
      60_000,
      100,
    );
    expect(dead).toMatchObject({
      attempts: 3,
      lastError: expect.stringMatching(/did not answer in time/),
    });
    expect((await harness().store.inbox.count()).pending).toBe(0);
    await expectLegalWithinOneTick(harness());
    await expectNoOrphans(harness());
  }, 90_000);
});

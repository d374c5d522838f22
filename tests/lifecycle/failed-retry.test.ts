import { afterEach, describe, expect, it } from "vitest";
import { LIFECYCLE } from "../../src/config/constants";
import type { SandboxProvider } from "../../src/server/providers/types";
import { nextRetryAt } from "../../src/server/sandbox/plan/policy";
import { startTickLoop } from "../../src/server/tick/tick-loop";
import { waitFor } from "../support/free-port";
import { type LifecycleHarness, lifecycleHarness } from "../support/lifecycle-harness";

let h: LifecycleHarness | null = null;
afterEach(async () => {
  await h?.stop();
  h = null;
});

/** A provider whose first `n` creates fail (a passing fault: a full disk, an API hiccup). */
function failingCreates(n: number) {
  let left = n;
  return (inner: SandboxProvider): SandboxProvider =>
    new Proxy(inner, {
      get(target, prop) {
        const value = Reflect.get(target, prop, target);
        if (prop === "create")
          return async (...args: unknown[]) => {
            if (left-- > 0) throw new Error("no space left on device (injected)");
            return value.apply(target, args);
          };
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
}

const RETRY_BASE_MS = 1_000;

describe("a failed instance with messages waiting", () => {
  it("is retried after seconds, not minutes, with the shipped timings: 5 s, then 10 s", () => {
    const failedAt = (failedStarts: number) => nextRetryAt({ since: 0, failedStarts }, LIFECYCLE);
    expect([failedAt(1), failedAt(2)]).toEqual([5_000, 10_000]);
  });

  it("is retried after seconds, not minutes, and the message is delivered", async () => {
    // The backoff shortened (a documented internal timing) to a fifth: 1 s then 2 s instead of
    // the shipped 5 s then 10 s (checked below), the same doubling in a fifth of the time.
    h = await lifecycleHarness({
      wrapProvider: failingCreates(2),
      timings: { failedRetryBaseMs: RETRY_BASE_MS },
    });
    const harness = h;
    await harness.store.inbox.enqueue({
      id: "m-1",
      channel: "generic",
      conversation: "c",
      text: "are you there?",
      receivedAt: Date.now(),
      meta: {},
    });
    const first = await harness.manager.wakeAndDeliver({ reason: "message", trigger: "message" });
    expect(first.wake.status).toBe("failed");
    expect((await harness.status()).failedStarts).toBe(1);
    const loop = startTickLoop(harness.manager, harness.ctx.timings, harness.ctx.logger);
    const started = Date.now();
    try {
      await waitFor(
        "the delivery",
        async () =>
          (await harness.events("message.replied")).some((e) => e.details.messageId === "m-1"),
        40_000,
        20,
      );
    } finally {
      loop.stop();
    }
    // Two failures back off base then twice base: delivered well within a minute of the first
    // failure, and not before the doubled backoff of the second failure ran out.
    const took = Date.now() - started;
    expect(took).toBeLessThan(30_000);
    expect(took).toBeGreaterThanOrEqual(2 * RETRY_BASE_MS);
    expect((await harness.status()).failedStarts).toBe(0);
    expect((await harness.events("status.failed")).length).toBe(2);
  }, 60_000);
});

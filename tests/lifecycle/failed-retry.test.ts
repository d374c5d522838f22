import { afterEach, describe, expect, it } from "vitest";
import type { SandboxProvider } from "../../src/server/providers/types";
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

describe("a failed instance with messages waiting", () => {
  it("is retried after seconds, not minutes, and the message is delivered", async () => {
    h = await lifecycleHarness({ wrapProvider: failingCreates(2) });
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
        100,
      );
    } finally {
      loop.stop();
    }
    // Two failures back off 5 s then 10 s: delivered well within a minute of the first failure.
    expect(Date.now() - started).toBeLessThan(30_000);
    expect((await harness.status()).failedStarts).toBe(0);
    expect((await harness.events("status.failed")).length).toBe(2);
  }, 60_000);
});

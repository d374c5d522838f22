import { describe, expect, it } from "vitest";
import { type Cost, costOf, countedApp } from "../support/store-cost";

/**
 * Found by the load benchmark (`npm run bench -- load`): every webhook of a burst to a
 * sleeping agent started its own wake-and-deliver loop after answering, and hundreds of them
 * polled the lock and the store at once — the 202s of the burst took seconds. Callers in one
 * process now share one run (src/server/sandbox/coalesce.ts): a burst costs about what one
 * message costs, counted in store statements on the real sqlite adapter.
 */

const BURST = 20;

describe("faults: a burst of messages to a sleeping agent", () => {
  it("costs one wake-and-deliver run, not one per message, and delivers every message", async () => {
    const app = await countedApp("sqlite");
    const { ctx, counter } = app;
    let seq = 0;
    const enqueue = async () => {
      for (let i = 0; i < BURST; i++)
        await ctx.store.inbox.enqueue({
          id: `m-${++seq}`,
          channel: "generic",
          conversation: `c-${i % 4}`,
          text: "x",
          receivedAt: Date.now(),
          meta: {},
        });
    };
    const asleep = async () => {
      expect((await ctx.manager.sleep("test")).status).toBe("sleeping");
    };
    try {
      await ctx.manager.wake({ reason: "test", trigger: "operator" });
      await asleep();
      await enqueue();
      const one: Cost = await costOf(counter, () =>
        ctx.manager.wakeAndDeliver({ reason: "one", trigger: "message" }),
      );
      expect((await ctx.store.inbox.count()).pending).toBe(0);
      await asleep();
      await enqueue();
      // As the webhook's after-the-response work does: one call per message, all at once.
      const burst: Cost = await costOf(counter, () =>
        Promise.all(
          Array.from({ length: BURST }, () =>
            ctx.manager.wakeAndDeliver({ reason: "burst", trigger: "message" }),
          ),
        ),
      );
      expect((await ctx.store.inbox.count()).pending).toBe(0);
      // One run, plus at most one more for callers that arrived while it ran.
      expect(burst.commands).toBeLessThanOrEqual(2 * one.commands);
    } finally {
      await app.close();
    }
  }, 60_000);
});

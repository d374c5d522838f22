import pino from "pino";
import { describe, expect, it } from "vitest";
import { LIFECYCLE } from "../../config/constants";
import type { AppContext } from "../app-context";
import type { TickReport } from "../sandbox/reconcile";
import { lazyTick } from "./lazy-tick";

/** A context whose manager reports the lock held `held` times, and a counter that records. */
function fakeContext(held: number) {
  const calls: string[] = [];
  let ticks = 0;
  const ctx = {
    env: { localTick: false },
    timings: { ...LIFECYCLE, lockLeaseMs: 600 },
    logger: pino({ level: "silent" }),
    store: {
      counters: {
        hit: async () => {
          calls.push("hit");
          return { count: 1, resetAt: 0 };
        },
        clear: async () => {
          calls.push("clear");
        },
      },
    },
    manager: {
      tick: async (): Promise<TickReport> => {
        calls.push("tick");
        return { ran: ++ticks > held, nextAt: null, actions: [], errors: [] };
      },
    },
  } as unknown as Pick<AppContext, "env" | "store" | "manager" | "logger" | "timings">;
  return { ctx, calls };
}

describe("lazyTick", () => {
  it("tries again after half a lease when the lock was held (a holder that died), until it runs", async () => {
    const { ctx, calls } = fakeContext(2);
    await lazyTick(ctx);
    expect(calls).toEqual(["hit", "tick", "tick", "tick"]);
  });
  it("gives its window back when the lock stays held for two leases, so the next request ticks", async () => {
    const { ctx, calls } = fakeContext(1_000);
    await lazyTick(ctx);
    expect(calls.filter((c) => c === "tick").length).toBeGreaterThan(1);
    expect(calls.at(-1)).toBe("clear");
  });
});

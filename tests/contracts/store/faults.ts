import { describe, expect, it } from "vitest";
import { type Store, StoreDataError, StoreUnavailableError } from "../../../src/server/store/types";
import {
  CORRUPT_IDS,
  type CorruptTarget,
  EVERY_OPERATION,
  event,
  heartbeat,
  message,
  state,
} from "./kit";
import type { ContractContext } from "./store-contract";

/** Per target: how to store something valid first, and the read that must then fail. */
const CORRUPTIONS: Record<
  CorruptTarget,
  { write(s: Store): Promise<unknown>; read: ((s: Store) => Promise<unknown>)[] }
> = {
  state: {
    write: (s) => s.state.compareAndSet(0, state()),
    read: [(s) => s.state.get(), (s) => s.heartbeats.record(heartbeat())],
  },
  heartbeat: {
    write: (s) => s.heartbeats.record(heartbeat({ sandboxId: CORRUPT_IDS.sandboxId })),
    read: [(s) => s.heartbeats.get(CORRUPT_IDS.sandboxId)],
  },
  events: { write: (s) => s.events.append(event()), read: [(s) => s.events.list(10)] },
  intervals: {
    write: (s) => s.awake.record({ sandboxId: "sb-1", start: 1, end: 2 }),
    read: [(s) => s.awake.list(0)],
  },
  inbox: {
    write: (s) => s.inbox.enqueue(message(CORRUPT_IDS.messageId)),
    read: [
      (s) => s.inbox.listPending(10),
      (s) => s.inbox.claim(Date.now(), 1_000, 10),
      (s) => s.inbox.enqueue(message(CORRUPT_IDS.messageId)),
    ],
  },
  schedule: {
    write: (s) => s.schedule.set({ nextDueAt: null, nextJob: null, lastRun: {}, agentJobs: [] }),
    read: [(s) => s.schedule.get()],
  },
};

async function rejection(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    (value) => ({ resolved: value }),
    (err: unknown) => err,
  );
}

/** Stored garbage, an unreachable backend, a closed store, and concurrent writers. */
export function faultsContract(ctx: ContractContext): void {
  describe("faults", () => {
    for (const [target, { write, read }] of Object.entries(CORRUPTIONS)) {
      it(`reports stored garbage in ${target} as StoreDataError naming the key`, async () => {
        const { store, instance } = ctx.open(`corrupt-${target}`);
        await write(store);
        const key = await ctx.harness().corrupt(instance, target as CorruptTarget);
        for (const op of read) {
          const err = await rejection(op(store));
          expect(err).toBeInstanceOf(StoreDataError);
          expect((err as StoreDataError).key).toBe(key);
          expect((err as Error).message).toContain(key);
        }
      });
    }

    it("fails every operation with StoreUnavailableError when the backend is unreachable", async () => {
      const store = await ctx.harness().unreachable(`down-${process.pid}`);
      try {
        for (const [name, op] of Object.entries(EVERY_OPERATION)) {
          const err = await rejection(op(store));
          expect(err, name).toBeInstanceOf(StoreUnavailableError);
        }
      } finally {
        await store.close();
      }
    });

    it("fails every operation with StoreUnavailableError once closed", async () => {
      const { store } = ctx.open("closed");
      await store.ping();
      await store.close();
      for (const [name, op] of Object.entries(EVERY_OPERATION)) {
        expect(await rejection(op(store)), name).toBeInstanceOf(StoreUnavailableError);
      }
    });
  });

  describe("concurrency (50 callers over several Store objects)", () => {
    const spread = (instance: string, n = 5) =>
      Array.from({ length: n }, () => ctx.reopen(instance));

    it("grants a contended lock to exactly one of 50 acquirers", async () => {
      const { instance } = ctx.open("race-lock");
      const stores = spread(instance);
      const grants = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          stores[i % stores.length]?.locks.acquire("lifecycle", `owner-${i}`, 60_000),
        ),
      );
      expect(grants.filter((g) => g != null)).toHaveLength(1);
    });

    it("loses no update among 50 compare-and-set increments that retry on conflict", async () => {
      const { store, instance } = ctx.open("race-cas");
      await store.state.compareAndSet(0, state({ since: 0 }));
      const stores = spread(instance);
      let conflicts = 0;
      const increment = async (s: Store) => {
        for (;;) {
          const current = await s.state.get();
          if (!current) throw new Error("state vanished");
          const next = state({ since: current.value.since + 1 });
          if ((await s.state.compareAndSet(current.version, next)).ok) return;
          conflicts++;
        }
      };
      await Promise.all(Array.from({ length: 50 }, (_, i) => increment(stores[i % 5] as Store)));
      const final = await store.state.get();
      expect(final?.value.since).toBe(50);
      expect(final?.version).toBe(51);
      // The race was real: some writers had to retry.
      expect(conflicts).toBeGreaterThan(0);
    });

    it("stores one message when the same dedupe id is enqueued 50 times at once", async () => {
      const { store, instance } = ctx.open("race-dedupe");
      const stores = spread(instance);
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          (stores[i % 5] as Store).inbox.enqueue(message("same", { text: `copy ${i}` })),
        ),
      );
      expect(results.filter((r) => !r.duplicate)).toHaveLength(1);
      expect(await store.inbox.count()).toEqual({ pending: 1, dead: 0 });
    });

    it("never hands one message to two concurrent claimers", async () => {
      const { store, instance } = ctx.open("race-claim");
      for (let i = 0; i < 20; i++)
        await store.inbox.enqueue(message(`m-${i}`, { conversation: `c-${i}` }));
      const stores = spread(instance);
      const batches = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          (stores[i % 5] as Store).inbox.claim(Date.now(), 60_000, 3),
        ),
      );
      const claimed = batches.flat().map((m) => m.id);
      expect(new Set(claimed).size).toBe(claimed.length);
      expect(claimed).toHaveLength(20);
    });
  });
}

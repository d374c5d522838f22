import { describe, expect, it } from "vitest";
import { heartbeat, message, sleep, state } from "./kit";
import type { ContractContext } from "./store-contract";

/** Instance state (CAS), locks (lease, owner, fencing) and heartbeats (replay, state in the same call). */
export function stateContract(ctx: ContractContext): void {
  describe("instance state", () => {
    it("is null until written, then versioned by compare-and-set", async () => {
      const { store } = ctx.open("state");
      expect(await store.state.get()).toBeNull();
      expect(await store.state.compareAndSet(0, state())).toEqual({ ok: true, version: 1 });
      expect(await store.state.get()).toEqual({ version: 1, value: state() });
      const next = state({ status: "sleeping", sandboxId: null, lastExtend: null });
      expect(await store.state.compareAndSet(1, next)).toEqual({ ok: true, version: 2 });
      expect(await store.state.get()).toEqual({ version: 2, value: next });
    });

    it("refuses a stale writer and reports the current value without changing it", async () => {
      const { store } = ctx.open("cas");
      await store.state.compareAndSet(0, state({ reason: "first" }));
      expect(await store.state.compareAndSet(0, state({ reason: "stale" }))).toEqual({
        ok: false,
        current: { version: 1, value: state({ reason: "first" }) },
      });
      expect(await store.state.compareAndSet(7, state({ reason: "future" }))).toMatchObject({
        ok: false,
      });
      expect(await store.state.get()).toEqual({ version: 1, value: state({ reason: "first" }) });
    });

    it("reports a conflict with current null when the expected version was never written", async () => {
      const { store } = ctx.open("cas-null");
      expect(await store.state.compareAndSet(3, state())).toEqual({ ok: false, current: null });
      expect(await store.state.get()).toBeNull();
    });
  });

  describe("glance", () => {
    it("reads the state with the inbox's and the outbox's pending counts, dead letters apart", async () => {
      const { store } = ctx.open("glance");
      expect(await store.state.glance()).toEqual({
        state: null,
        inboxPending: 0,
        outboxPending: 0,
      });
      await store.state.compareAndSet(0, state({ status: "sleeping", sandboxId: null }));
      await store.inbox.enqueue(message("in-1"));
      await store.inbox.enqueue(message("in-2"));
      await store.inbox.enqueue(message("in-dead"));
      await store.inbox.claim(Date.now(), 60_000, 10);
      expect(await store.inbox.fail("in-dead", "x", { maxAttempts: 1, retryAt: 0 })).toBe("dead");
      await store.outbox.enqueue(message("out-1"));
      expect(await store.state.glance()).toEqual({
        state: await store.state.get(),
        inboxPending: 2,
        outboxPending: 1,
      });
      await store.outbox.claim(Date.now(), 60_000, 10);
      await store.outbox.ack("out-1");
      expect((await store.state.glance()).outboxPending).toBe(0);
    });
  });

  describe("locks", () => {
    it("grants a free lock with a fence and refuses another owner at once", async () => {
      const { store } = ctx.open("lock");
      const before = Date.now();
      const grant = await store.locks.acquire("lifecycle", "a", 60_000);
      expect(grant).toMatchObject({ name: "lifecycle", owner: "a" });
      expect(grant?.fence).toBeGreaterThan(0);
      expect(grant?.expiresAt).toBeGreaterThanOrEqual(before + 60_000 - 1);
      // Held for a minute: a blocking acquire would time the test out instead of returning null.
      expect(await store.locks.acquire("lifecycle", "b", 60_000)).toBeNull();
      expect(await store.locks.acquire("other", "b", 60_000)).not.toBeNull();
    });

    it("renews and releases only for the owner", async () => {
      const { store } = ctx.open("lock-owner");
      await store.locks.acquire("l", "a", 60_000);
      expect(await store.locks.renew("l", "b", 60_000)).toBe(false);
      expect(await store.locks.release("l", "b")).toBe(false);
      expect(await store.locks.acquire("l", "b", 60_000)).toBeNull();
      expect(await store.locks.renew("l", "a", 60_000)).toBe(true);
      expect(await store.locks.release("l", "a")).toBe(true);
      expect(await store.locks.release("l", "a")).toBe(false);
      expect(await store.locks.renew("l", "a", 60_000)).toBe(false);
      expect(await store.locks.acquire("l", "b", 60_000)).toMatchObject({ owner: "b" });
    });

    it("increases the fence on every acquisition, across release", async () => {
      const { store } = ctx.open("fence");
      const fences: number[] = [];
      for (const owner of ["a", "b", "a"]) {
        const grant = await store.locks.acquire("l", owner, 60_000);
        fences.push(grant?.fence ?? -1);
        await store.locks.release("l", owner);
      }
      const again = await store.locks.acquire("l", "c", 60_000);
      fences.push(again?.fence ?? -1);
      // The same owner acquiring again is a new acquisition with a new fence.
      fences.push((await store.locks.acquire("l", "c", 60_000))?.fence ?? -1);
      for (let i = 1; i < fences.length; i++) {
        expect(fences[i]).toBeGreaterThan(fences[i - 1] ?? Number.POSITIVE_INFINITY);
      }
    });

    it("lets the next owner in after the lease expires, with a larger fence", async () => {
      const { store } = ctx.open("lease");
      const first = await store.locks.acquire("l", "crashed", 300);
      expect(await store.locks.acquire("l", "next", 5_000)).toBeNull();
      await sleep(450);
      const second = await store.locks.acquire("l", "next", 5_000);
      expect(second?.owner).toBe("next");
      expect(second?.fence).toBeGreaterThan(first?.fence ?? Number.POSITIVE_INFINITY);
      // The crashed holder lost it: it can neither renew nor release.
      expect(await store.locks.renew("l", "crashed", 5_000)).toBe(false);
      expect(await store.locks.release("l", "crashed")).toBe(false);
    });

    it("keeps a renewed lease alive past its original expiry", async () => {
      const { store } = ctx.open("renew");
      await store.locks.acquire("l", "a", 400);
      await sleep(100);
      expect(await store.locks.renew("l", "a", 3_000)).toBe(true);
      await sleep(450); // past the original lease

      expect(await store.locks.acquire("l", "b", 1_000)).toBeNull();
    });
  });

  describe("heartbeats", () => {
    it("records the newest heartbeat per sandbox and returns the state in the same call", async () => {
      const { store } = ctx.open("hb");
      // The cron due time travels with the state (the heartbeat's cron reason reads it).
      await store.state.compareAndSet(0, state({ cronDueAt: 123_456 }));
      expect((await store.state.get())?.value.cronDueAt).toBe(123_456);
      await store.state.compareAndSet(1, state());
      expect(await store.heartbeats.get("sb-1")).toBeNull();
      expect(await store.heartbeats.record(heartbeat())).toEqual({
        fresh: true,
        previous: null,
        state: { version: 2, value: state() },
      });
      expect(await store.heartbeats.get("sb-1")).toEqual(heartbeat());

      const newer = heartbeat({ sentAt: 11_000, daemonRestarts: 1 });
      expect(await store.heartbeats.record(newer)).toEqual({
        fresh: true,
        previous: heartbeat(),
        state: { version: 2, value: state() },
      });
      expect(await store.heartbeats.get("sb-1")).toEqual(newer);
      expect(await store.heartbeats.get("sb-2")).toBeNull();
    });

    it("treats a heartbeat not newer than the stored one as a replay and changes nothing", async () => {
      const { store } = ctx.open("replay");
      const original = heartbeat({ sentAt: 20_000 });
      await store.heartbeats.record(original);
      await store.state.compareAndSet(0, state());
      for (const sentAt of [20_000, 19_999]) {
        const replay = heartbeat({ sentAt, receivedAt: 99_999, daemonStatus: "failed" });
        expect(await store.heartbeats.record(replay)).toEqual({
          fresh: false,
          previous: original,
          state: { version: 1, value: state() },
        });
      }
      expect(await store.heartbeats.get("sb-1")).toEqual(original);
      // Another sandbox has its own sequence.
      const other = heartbeat({ sandboxId: "sb-2", sentAt: 1 });
      expect((await store.heartbeats.record(other)).fresh).toBe(true);
    });
  });
}

import { describe, expect, it } from "vitest";
import { event, heartbeat, message, sleep, state } from "./kit";
import type { ContractContext } from "./store-contract";

/** Events, awake intervals, schedule, counters, and instance isolation across all of them. */
export function logsContract(ctx: ContractContext): void {
  describe("events", () => {
    it("appends with an id and lists newest first", async () => {
      const { store } = ctx.open("events");
      expect(await store.events.list(10)).toEqual([]);
      const a = await store.events.append(event({ type: "a", at: 1 }));
      const b = await store.events.append(
        event({ type: "b", at: 2, details: { deep: { x: [1] } } }),
      );
      expect(a.id).not.toBe(b.id);
      expect(b).toEqual({
        id: b.id,
        ...event({ type: "b", at: 2, details: { deep: { x: [1] } } }),
      });
      expect(await store.events.list(10)).toEqual([b, a]);
      expect(await store.events.list(1)).toEqual([b]);
      expect(await store.events.list(0)).toEqual([]);
    });

    it("keeps only the newest eventCap events", async () => {
      const { store } = ctx.open("event-cap", { eventCap: 3 });
      const appended = [];
      for (let i = 0; i < 6; i++)
        appended.push(await store.events.append(event({ type: `e${i}` })));
      expect(await store.events.list(100)).toEqual(appended.slice(3).reverse());
    });
  });

  describe("awake intervals", () => {
    it("lists intervals ending at or after `since`, oldest first, capped", async () => {
      const { store } = ctx.open("awake", { intervalCap: 3 });
      expect(await store.awake.list(0)).toEqual([]);
      const intervals = [10, 20, 30, 40].map((t) => ({ sandboxId: "sb-1", start: t, end: t + 5 }));
      for (const iv of [...intervals].reverse()) await store.awake.record(iv);
      // Recording the same interval again does not duplicate it.
      await store.awake.record({ sandboxId: "sb-1", start: 40, end: 45 });
      expect(await store.awake.list(0)).toEqual(intervals.slice(1));
      expect(await store.awake.list(35)).toEqual(intervals.slice(2));
      expect(await store.awake.list(45)).toEqual(intervals.slice(3));
      expect(await store.awake.list(46)).toEqual([]);
    });
  });

  describe("schedule", () => {
    it("is null until set, then returns what was set last", async () => {
      const { store } = ctx.open("schedule");
      expect(await store.schedule.get()).toBeNull();
      const first = {
        nextDueAt: 5_000,
        nextJob: "daily",
        lastRun: { daily: 4_000 },
        agentJobs: [],
      };
      await store.schedule.set(first);
      expect(await store.schedule.get()).toEqual(first);
      const second = { nextDueAt: null, nextJob: null, lastRun: {}, agentJobs: [] };
      await store.schedule.set(second);
      expect(await store.schedule.get()).toEqual(second);
    });
  });

  describe("small records", () => {
    it("stores, overwrites, expires and deletes values", async () => {
      const { store } = ctx.open("kv");
      expect(await store.kv.get("slack:placeholder:m-1")).toBeNull();
      await store.kv.set("slack:placeholder:m-1", "1712.0001", null);
      expect(await store.kv.get("slack:placeholder:m-1")).toBe("1712.0001");
      await store.kv.set("slack:placeholder:m-1", "ünïcødé 🦀 and a newline\n", null);
      expect(await store.kv.get("slack:placeholder:m-1")).toBe("ünïcødé 🦀 and a newline\n");
      await store.kv.set("short", "lived", 150);
      expect(await store.kv.get("short")).toBe("lived");
      await sleep(250);
      expect(await store.kv.get("short")).toBeNull();
      await store.kv.delete("slack:placeholder:m-1");
      expect(await store.kv.get("slack:placeholder:m-1")).toBeNull();
      await store.kv.delete("never-set");
    });
  });

  describe("hit counters", () => {
    it("counts within a window per key and starts over when it ends", async () => {
      const { store } = ctx.open("hit");
      const before = Date.now();
      const window = 800;
      const first = await store.counters.hit("ip:1", window);
      expect(first.count).toBe(1);
      expect(first.resetAt).toBeGreaterThanOrEqual(before + window - 20);
      expect(first.resetAt).toBeLessThanOrEqual(Date.now() + window);
      const second = await store.counters.hit("ip:1", window);
      expect(second.count).toBe(2);
      // Still the first window: it ends no earlier than the first hit's window.
      expect(second.resetAt).toBeGreaterThanOrEqual(before + window - 20);
      expect(second.resetAt).toBeLessThanOrEqual(Date.now() + window);
      expect((await store.counters.hit("ip:1", window)).count).toBe(3);
      expect(await store.counters.read("ip:1")).toBe(3);
      expect(await store.counters.read("ip:1")).toBe(3);
      expect(await store.counters.read("never")).toBe(0);
      expect((await store.counters.hit("ip:2", window)).count).toBe(1);
      await sleep(Math.max(0, first.resetAt - Date.now()) + 50);
      expect(await store.counters.read("ip:1")).toBe(0);
      expect((await store.counters.hit("ip:1", window)).count).toBe(1);
    });

    it("clear ends a key's window at once and leaves other keys alone", async () => {
      const { store } = ctx.open("hit-clear");
      await store.counters.hit("a", 60_000);
      await store.counters.hit("a", 60_000);
      await store.counters.hit("b", 60_000);
      await store.counters.clear("a");
      expect(await store.counters.read("a")).toBe(0);
      expect(await store.counters.read("b")).toBe(1);
      expect((await store.counters.hit("a", 60_000)).count).toBe(1);
      await store.counters.clear("never-set");
    });
  });

  describe("instance isolation", () => {
    it("shares nothing between two instance names on the same backend", async () => {
      const { store: a } = ctx.open("iso-a");
      const { store: b } = ctx.open("iso-b");
      await a.state.compareAndSet(0, state());
      expect(await a.locks.acquire("l", "owner-a", 60_000)).not.toBeNull();
      await a.heartbeats.record(heartbeat());
      await a.events.append(event());
      await a.awake.record({ sandboxId: "sb-1", start: 1, end: 2 });
      await a.inbox.enqueue(message("m-1"));
      await a.schedule.set({ nextDueAt: 1, nextJob: "j", lastRun: {}, agentJobs: [] });
      await a.counters.hit("k", 60_000);

      expect(await b.state.get()).toBeNull();
      expect(await b.state.compareAndSet(0, state({ reason: "b" }))).toEqual({
        ok: true,
        version: 1,
      });
      expect(await b.locks.acquire("l", "owner-b", 60_000)).toMatchObject({ owner: "owner-b" });
      expect(await b.heartbeats.get("sb-1")).toBeNull();
      expect((await b.heartbeats.record(heartbeat())).fresh).toBe(true);
      expect(await b.events.list(10)).toEqual([]);
      expect(await b.awake.list(0)).toEqual([]);
      expect(await b.inbox.listPending(10)).toEqual([]);
      expect(await b.inbox.count()).toEqual({ pending: 0, dead: 0 });
      expect((await b.inbox.enqueue(message("m-1"))).duplicate).toBe(false);
      expect(await b.schedule.get()).toBeNull();
      expect((await b.counters.hit("k", 60_000)).count).toBe(1);

      expect(await a.state.get()).toEqual({ version: 1, value: state() });
      expect(await a.inbox.count()).toEqual({ pending: 1, dead: 0 });
      expect(await a.events.list(10)).toHaveLength(1);
    });
  });
}

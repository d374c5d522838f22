import { describe, expect, it } from "vitest";
import { state, USAGE_CALL, usageSettlement } from "./kit";
import type { ContractContext } from "./store-contract";

const DAY = USAGE_CALL.day;
const MONTH = USAGE_CALL.month;

/** Model spend: reserve-then-settle, caps, the operator's raise, warnings, races. */
export function usageContract(ctx: ContractContext): void {
  describe("usage", () => {
    it("starts empty", async () => {
      const { store } = ctx.open("usage-empty");
      expect(await store.usage.read(DAY, MONTH)).toEqual({
        day: { totalMicros: 0, raiseMicros: 0, reachedMicros: null, models: {}, conversations: {} },
        month: { totalMicros: 0, reachedMicros: null, models: {}, conversations: {} },
      });
    });

    it("holds a reservation, then replaces it by the real cost and counts the call", async () => {
      const { store } = ctx.open("usage-settle");
      expect(await store.usage.reserve(USAGE_CALL)).toEqual({
        held: true,
        reached: null,
        dayMicros: 0,
        monthMicros: 0,
        raiseMicros: 0,
        open: [],
        state: null,
      });
      expect((await store.usage.read(DAY, MONTH)).day.totalMicros).toBe(100);
      expect(await store.usage.settle(usageSettlement())).toEqual({ warned: [] });
      const spend = {
        costMicros: 40,
        calls: 1,
        inputTokens: 10,
        outputTokens: 2,
        cachedInputTokens: 1,
      };
      const unattributed = { "": { costMicros: 40, calls: 1 } };
      expect(await store.usage.read(DAY, MONTH)).toEqual({
        day: {
          totalMicros: 40,
          raiseMicros: 0,
          reachedMicros: null,
          models: { "gpt-4o": spend },
          conversations: unattributed,
        },
        month: {
          totalMicros: 40,
          reachedMicros: null,
          models: { "gpt-4o": spend },
          conversations: unattributed,
        },
      });
      // Another day of the same month adds to the month only.
      await store.usage.reserve({ ...USAGE_CALL, day: "2026-12-03" });
      await store.usage.settle(usageSettlement({ day: "2026-12-03", model: "a/b|c" }));
      const month = (await store.usage.read(DAY, MONTH)).month;
      expect(month.totalMicros).toBe(80);
      expect(Object.keys(month.models).sort()).toEqual(["a/b|c", "gpt-4o"]);
      expect((await store.usage.read(DAY, MONTH)).day.totalMicros).toBe(40);
    });

    it("releases the hold of a call that produced nothing, without counting it", async () => {
      const { store } = ctx.open("usage-release");
      await store.usage.reserve(USAGE_CALL);
      await store.usage.settle(usageSettlement({ cost: 0, model: null }));
      expect(await store.usage.read(DAY, MONTH)).toEqual({
        day: { totalMicros: 0, raiseMicros: 0, reachedMicros: null, models: {}, conversations: {} },
        month: { totalMicros: 0, reachedMicros: null, models: {}, conversations: {} },
      });
    });

    it("refuses a hold past the daily cap and changes nothing; today's raise lets it through", async () => {
      const { store } = ctx.open("usage-cap");
      expect((await store.usage.reserve({ ...USAGE_CALL, amount: 950 })).held).toBe(true);
      expect(await store.usage.reserve(USAGE_CALL)).toEqual({
        held: false,
        reached: "daily",
        dayMicros: 950,
        monthMicros: 950,
        raiseMicros: 0,
        open: [],
        state: null,
      });
      expect((await store.usage.read(DAY, MONTH)).day.totalMicros).toBe(950);
      // Exactly reaching the cap is allowed.
      expect((await store.usage.reserve({ ...USAGE_CALL, amount: 50 })).held).toBe(true);
      expect(await store.usage.raise(DAY, 500)).toBe(500);
      expect(await store.usage.raise(DAY, 100)).toBe(600);
      expect(await store.usage.reserve(USAGE_CALL)).toMatchObject({ held: true, raiseMicros: 600 });
      // The raise is today's only.
      expect(
        (await store.usage.reserve({ ...USAGE_CALL, day: "2026-12-03", amount: 1_001 })).held,
      ).toBe(false);
    });

    it("marks a period reached once per cap value, by the first refusal at it", async () => {
      const { store, instance } = ctx.open("usage-reached");
      const other = ctx.reopen(instance);
      expect((await store.usage.reserve({ ...USAGE_CALL, amount: 950 })).reached).toBeNull();
      // Racing refusals on two servers: exactly one marks it.
      const refused = await Promise.all(
        Array.from({ length: 10 }, (_, i) => (i % 2 ? other : store).usage.reserve(USAGE_CALL)),
      );
      expect(refused.every((r) => !r.held)).toBe(true);
      expect(refused.map((r) => r.reached).filter(Boolean)).toEqual(["daily"]);
      expect((await store.usage.read(DAY, MONTH)).day.reachedMicros).toBe(1_000);
      // A raise is a new cap: the first refusal past it marks it again, once.
      await store.usage.raise(DAY, 100);
      expect((await store.usage.reserve({ ...USAGE_CALL, amount: 200 })).reached).toBe("daily");
      expect((await store.usage.reserve({ ...USAGE_CALL, amount: 200 })).reached).toBeNull();
      expect((await store.usage.read(DAY, MONTH)).day.reachedMicros).toBe(1_100);
      // The month's cap is marked on the month.
      const month = { ...USAGE_CALL, dayLimit: null, monthLimit: 1_000, amount: 100 };
      expect((await store.usage.reserve(month)).reached).toBe("monthly");
      expect((await store.usage.reserve(month)).reached).toBeNull();
      expect((await store.usage.read(DAY, MONTH)).month.reachedMicros).toBe(1_000);
    });

    it("refuses a hold past the monthly cap; null limits never refuse", async () => {
      const { store } = ctx.open("usage-month");
      const big = { ...USAGE_CALL, dayLimit: null, monthLimit: 1_000, amount: 800 };
      expect((await store.usage.reserve(big)).held).toBe(true);
      expect((await store.usage.reserve({ ...big, day: "2026-12-05" })).held).toBe(false);
      const none = { ...USAGE_CALL, dayLimit: null, monthLimit: null, amount: 1e12 };
      expect((await store.usage.reserve(none)).held).toBe(true);
    });

    it("flags a period's warning line once, to the settlement that reached it", async () => {
      const { store } = ctx.open("usage-warn");
      const warn = { warnDayAt: 80, warnMonthAt: 1_000 };
      await store.usage.reserve(USAGE_CALL);
      expect(await store.usage.settle(usageSettlement({ ...warn, cost: 50 }))).toEqual({
        warned: [],
      });
      await store.usage.reserve(USAGE_CALL);
      expect(await store.usage.settle(usageSettlement({ ...warn, cost: 50 }))).toEqual({
        warned: ["daily"],
      });
      await store.usage.reserve(USAGE_CALL);
      expect(await store.usage.settle(usageSettlement({ ...warn, cost: 1_000 }))).toEqual({
        warned: ["monthly"],
      });
    });

    it("lets 50 racing calls from several instances hold no more than the cap", async () => {
      const { store, instance } = ctx.open("usage-race");
      const stores = [store, ...Array.from({ length: 4 }, () => ctx.reopen(instance))];
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, i) => stores[i % stores.length]?.usage.reserve(USAGE_CALL)),
      );
      expect(results.filter((r) => r?.held)).toHaveLength(10);
      expect((await store.usage.read(DAY, MONTH)).day.totalMicros).toBe(1_000);
    });

    it("keeps instances apart", async () => {
      const a = ctx.open("usage-a").store;
      const b = ctx.open("usage-b").store;
      await a.usage.reserve(USAGE_CALL);
      await a.usage.raise(DAY, 5);
      expect((await b.usage.read(DAY, MONTH)).day).toEqual({
        totalMicros: 0,
        raiseMicros: 0,
        reachedMicros: null,
        models: {},
        conversations: {},
      });
    });

    it("counts each call for its conversation, per day and month", async () => {
      const { store } = ctx.open("usage-conv");
      for (const [conversation, cost] of [
        ["telegram:42", 30],
        ["telegram:42", 20],
        ["slack:C1|t", 5],
        ["", 7],
      ] as const) {
        await store.usage.reserve(USAGE_CALL);
        await store.usage.settle(usageSettlement({ conversation, cost }));
      }
      await store.usage.reserve({ ...USAGE_CALL, day: "2026-12-03" });
      await store.usage.settle(
        usageSettlement({ day: "2026-12-03", conversation: "telegram:42", cost: 100 }),
      );
      const totals = await store.usage.read(DAY, MONTH);
      expect(totals.day.conversations).toEqual({
        "telegram:42": { costMicros: 50, calls: 2 },
        "slack:C1|t": { costMicros: 5, calls: 1 },
        "": { costMicros: 7, calls: 1 },
      });
      expect(totals.month.conversations["telegram:42"]).toEqual({ costMicros: 150, calls: 3 });
    });

    it("reads the instance state with the reservation, held or not", async () => {
      const { store } = ctx.open("usage-state");
      expect((await store.usage.reserve(USAGE_CALL)).state).toBeNull();
      await store.state.compareAndSet(0, state({ sandboxId: "sb-7" }));
      expect((await store.usage.reserve(USAGE_CALL)).state).toEqual(await store.state.get());
      const refused = await store.usage.reserve({ ...USAGE_CALL, amount: 1e9 });
      expect(refused.held).toBe(false);
      expect(refused.state?.value.sandboxId).toBe("sb-7");
    });

    it("reads the deliveries open at the call's time with the reservation, held or not", async () => {
      const { store, instance } = ctx.open("usage-open");
      const other = ctx.reopen(instance);
      const mark = (id: string, until: number) => ({
        id,
        channel: "telegram",
        conversation: `conv-${id}`,
        meta: { chatId: 9_007_199_254_740_991, nested: { a: [1] } },
        until,
      });
      await store.deliveries.open(mark("m-1", 5_000), 1_000);
      // Another server's delivery of another conversation, at the same time.
      await other.deliveries.open(mark("m-2", 6_000), 1_000);
      const both = await store.usage.reserve({ ...USAGE_CALL, now: 2_000 });
      expect(both.open.map((d) => d.id).sort()).toEqual(["m-1", "m-2"]);
      expect(both.open.find((d) => d.id === "m-1")).toEqual(mark("m-1", 5_000));
      await other.deliveries.close("m-2");
      expect((await store.usage.reserve({ ...USAGE_CALL, now: 2_000 })).open).toEqual([
        mark("m-1", 5_000),
      ]);
      // A mark past its time counts as closed (its server died mid-delivery), refused hold or not.
      const late = await store.usage.reserve({ ...USAGE_CALL, now: 5_000, amount: 1e9 });
      expect(late).toMatchObject({ held: false, open: [] });
      // The next open drops it for good.
      await store.deliveries.open(mark("m-3", 9_000), 5_000);
      expect((await store.usage.reserve({ ...USAGE_CALL, now: 0 })).open.map((d) => d.id)).toEqual([
        "m-3",
      ]);
    });
  });
}

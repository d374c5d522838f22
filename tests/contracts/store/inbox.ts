import { describe, expect, it } from "vitest";
import { message, sleep } from "./kit";
import type { ContractContext } from "./store-contract";

const ids = (list: { id: string }[]) => list.map((m) => m.id);

/** The durable inbox: dedupe, order, claim/visibility, per-conversation order, retry, dead letters. */
export function inboxContract(ctx: ContractContext, queue: "inbox" | "outbox"): void {
  describe(queue, () => {
    it("stores a message with store-assigned fields and lists pending in arrival order", async () => {
      const { store } = ctx.open("inbox");
      const { duplicate, message: stored } = await store[queue].enqueue(message("m-1"));
      expect(duplicate).toBe(false);
      expect(stored).toEqual({
        ...message("m-1"),
        seq: expect.any(Number),
        attempts: 0,
        lastError: null,
        notBefore: 0,
        claimedUntil: 0,
      });
      for (const id of ["m-2", "m-3", "m-4"]) await store[queue].enqueue(message(id));
      const pending = await store[queue].listPending(10);
      expect(ids(pending)).toEqual(["m-1", "m-2", "m-3", "m-4"]);
      const seqs = pending.map((m) => m.seq);
      expect([...seqs].sort((x, y) => x - y)).toEqual(seqs);
      expect(new Set(seqs).size).toBe(4);
      expect(ids(await store[queue].listPending(2))).toEqual(["m-1", "m-2"]);
      expect(await store[queue].count()).toEqual({ pending: 4, dead: 0 });
    });

    it("stores a deduplicated id once and returns the earlier message", async () => {
      const { store } = ctx.open("dedupe");
      const first = await store[queue].enqueue(message("m-1"));
      const again = await store[queue].enqueue(message("m-1", { text: "different" }));
      expect(again).toEqual({ duplicate: true, message: first.message });
      expect(await store[queue].count()).toEqual({ pending: 1, dead: 0 });
    });

    it("remembers an acknowledged id for the dedupe window, then forgets it", async () => {
      const { store } = ctx.open("dedupe-window", { dedupeWindowMs: 600 });
      await store[queue].enqueue(message("m-1"));
      await store[queue].claim(Date.now(), 1_000, 10);
      expect(await store[queue].ack("m-1")).toBe(true);
      expect(await store[queue].ack("m-1")).toBe(false);
      expect(await store[queue].enqueue(message("m-1"))).toEqual({
        duplicate: true,
        message: null,
      });
      expect(await store[queue].count()).toEqual({ pending: 0, dead: 0 });
      await sleep(700);
      expect((await store[queue].enqueue(message("m-1"))).duplicate).toBe(false);
      expect(await store[queue].count()).toEqual({ pending: 1, dead: 0 });
    });

    it("hides a claimed message until its visibility timeout ends", async () => {
      const { store } = ctx.open("visibility");
      await store[queue].enqueue(message("m-1"));
      const t0 = 1_000_000;
      const [claimed] = await store[queue].claim(t0, 1_000, 10);
      expect(claimed).toMatchObject({ id: "m-1", claimedUntil: t0 + 1_000, attempts: 0 });
      expect(await store[queue].claim(t0 + 999, 1_000, 10)).toEqual([]);
      const [reclaimed] = await store[queue].claim(t0 + 1_000, 1_000, 10);
      expect(reclaimed).toMatchObject({ id: "m-1", claimedUntil: t0 + 2_000, attempts: 0 });
      // Still pending (claimed is not delivered) until acknowledged.
      expect(ids(await store[queue].listPending(10))).toEqual(["m-1"]);
      expect(await store[queue].ack("m-1")).toBe(true);
      expect(await store[queue].listPending(10)).toEqual([]);
    });

    it("releases a claim without counting an attempt, keeping its place", async () => {
      const { store } = ctx.open("release");
      await store[queue].enqueue(message("m-1"));
      await store[queue].enqueue(message("m-2"));
      const t0 = 1_000_000;
      expect(ids(await store[queue].claim(t0, 60_000, 1))).toEqual(["m-1"]);
      expect(await store[queue].release("m-1")).toBe(true);
      const again = await store[queue].claim(t0 + 1, 60_000, 10);
      expect(again.map((m) => [m.id, m.attempts])).toEqual([
        ["m-1", 0],
        ["m-2", 0],
      ]);
      expect(await store[queue].release("never-queued")).toBe(false);
      await store[queue].ack("m-1");
      expect(await store[queue].release("m-1")).toBe(false);
    });

    it("claims in arrival order up to the limit", async () => {
      const { store } = ctx.open("claim-limit");
      for (let i = 1; i <= 5; i++)
        await store[queue].enqueue(message(`m-${i}`, { conversation: `c-${i}` }));
      expect(await store[queue].claim(1_000, 1_000, 0)).toEqual([]);
      expect(ids(await store[queue].claim(1_000, 1_000, 2))).toEqual(["m-1", "m-2"]);
      expect(ids(await store[queue].claim(1_000, 1_000, 10))).toEqual(["m-3", "m-4", "m-5"]);
    });

    it("keeps per-conversation order: a conversation waits while its earliest message cannot be claimed", async () => {
      const { store } = ctx.open("order");
      const conv = { a1: "A", b1: "B", a2: "A", b2: "B" } as const;
      for (const [id, conversation] of Object.entries(conv)) {
        await store[queue].enqueue(message(id, { conversation }));
      }
      const t0 = 1_000_000;
      expect(ids(await store[queue].claim(t0, 5_000, 1))).toEqual(["a1"]);
      // a1 is claimed elsewhere, so a2 must wait; B's messages come in order in one batch.
      expect(ids(await store[queue].claim(t0, 5_000, 10))).toEqual(["b1", "b2"]);
      expect(
        await store[queue].fail("a1", "timeout", { maxAttempts: 5, retryAt: t0 + 1_000 }),
      ).toBe("retry");
      // a1 now waits for its retry time: A stays blocked.
      expect(await store[queue].claim(t0 + 10, 5_000, 10)).toEqual([]);
      expect(ids(await store[queue].claim(t0 + 1_000, 5_000, 10))).toEqual(["a1", "a2"]);
    });

    it("retries a failed message at retryAt and dead-letters it after maxAttempts", async () => {
      const { store } = ctx.open("fail");
      await store[queue].enqueue(message("m-1"));
      const t0 = 1_000_000;
      await store[queue].claim(t0, 1_000, 10);
      expect(await store[queue].fail("m-1", "e1", { maxAttempts: 3, retryAt: t0 + 100 })).toBe(
        "retry",
      );
      expect((await store[queue].listPending(10))[0]).toMatchObject({
        attempts: 1,
        lastError: "e1",
        notBefore: t0 + 100,
        claimedUntil: 0,
      });
      expect(await store[queue].claim(t0 + 99, 1_000, 10)).toEqual([]);
      expect(ids(await store[queue].claim(t0 + 100, 1_000, 10))).toEqual(["m-1"]);
      expect(await store[queue].fail("m-1", "e2", { maxAttempts: 3, retryAt: t0 + 200 })).toBe(
        "retry",
      );
      expect(await store[queue].fail("m-1", "e3", { maxAttempts: 3, retryAt: t0 + 300 })).toBe(
        "dead",
      );
      expect(await store[queue].count()).toEqual({ pending: 0, dead: 1 });
      expect(await store[queue].listPending(10)).toEqual([]);
      expect(await store[queue].listDead(10)).toEqual([
        expect.objectContaining({ id: "m-1", attempts: 3, lastError: "e3", claimedUntil: 0 }),
      ]);
      expect(await store[queue].claim(t0 + 10_000, 1_000, 10)).toEqual([]);
      // Dead is not pending: neither fail nor ack applies; the id still dedupes.
      expect(await store[queue].fail("m-1", "e4", { maxAttempts: 3, retryAt: 0 })).toBe("missing");
      expect(await store[queue].ack("m-1")).toBe(false);
      expect((await store[queue].enqueue(message("m-1"))).duplicate).toBe(true);
      expect(await store[queue].fail("unknown", "e", { maxAttempts: 3, retryAt: 0 })).toBe(
        "missing",
      );
    });

    it("lists dead letters newest first and retries them at their original place", async () => {
      const { store } = ctx.open("dead");
      for (const id of ["m-1", "m-2", "m-3"])
        await store[queue].enqueue(message(id, { conversation: id }));
      const before = await store[queue].listPending(10);
      expect(await store[queue].fail("m-1", "x", { maxAttempts: 1, retryAt: 0 })).toBe("dead");
      expect(await store[queue].fail("m-2", "y", { maxAttempts: 1, retryAt: 0 })).toBe("dead");
      expect(ids(await store[queue].listDead(10))).toEqual(["m-2", "m-1"]);
      expect(ids(await store[queue].listDead(1))).toEqual(["m-2"]);

      expect(await store[queue].retryDead("m-1")).toBe(true);
      expect(await store[queue].retryDead("m-1")).toBe(false);
      expect(await store[queue].retryDead("unknown")).toBe(false);
      const pending = await store[queue].listPending(10);
      expect(ids(pending)).toEqual(["m-1", "m-3"]);
      expect(pending[0]).toMatchObject({ seq: before[0]?.seq, attempts: 0, notBefore: 0 });
      expect(await store[queue].count()).toEqual({ pending: 2, dead: 1 });
      expect(ids(await store[queue].claim(Date.now(), 1_000, 10))).toEqual(["m-1", "m-3"]);
    });

    it("defers a claimed message without counting an attempt, in its conversation's order", async () => {
      const { store } = ctx.open(`${queue}-defer`);
      await store[queue].enqueue(message("m-1", { conversation: "c" }));
      await store[queue].enqueue(message("m-2", { conversation: "c" }));
      const now = Date.now();
      expect(ids(await store[queue].claim(now, 60_000, 1))).toEqual(["m-1"]);
      expect(await store[queue].defer("m-1", now + 500)).toBe(true);
      // Deferred: neither it nor the rest of its conversation is due yet.
      expect(await store[queue].claim(now + 100, 60_000, 10)).toEqual([]);
      const again = await store[queue].claim(now + 600, 60_000, 1);
      expect(ids(again)).toEqual(["m-1"]);
      expect(again[0]?.attempts).toBe(0);
      expect(await store[queue].defer("nope", now)).toBe(false);
    });

    it("keeps its messages apart from the other queue", async () => {
      const { store } = ctx.open(`${queue}-apart`);
      const other = queue === "inbox" ? "outbox" : "inbox";
      await store[queue].enqueue(message("m-1"));
      expect(await store[other].count()).toEqual({ pending: 0, dead: 0 });
      expect((await store[other].enqueue(message("m-1"))).duplicate).toBe(false);
      expect(await store[queue].count()).toEqual({ pending: 1, dead: 0 });
    });
  });
}

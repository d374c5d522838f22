import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { SqliteStore } from "../store/sqlite/store";
import { CLAIM_RECHECK_MS, waitForDue } from "./wait-for-due";

let dir: string | null = null;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = null;
});

function store() {
  dir = mkdtempSync(join(tmpdir(), "clawrun-wait-for-due-"));
  return new SqliteStore(join(dir, "store.db"), { instance: "t" });
}

const message = (id: string) => ({
  id,
  channel: "chat",
  conversation: "c1",
  text: "hi",
  receivedAt: Date.now(),
  meta: {},
});

describe("waitForDue (one wait for the inbox and the outbox)", () => {
  it("returns false at once when the queue is empty or the deadline has passed", async () => {
    const s = store();
    expect(await waitForDue(s.outbox, Date.now, Date.now() + 5_000)).toBe(false);
    await s.outbox.enqueue(message("a"));
    expect(await waitForDue(s.outbox, Date.now, Date.now() - 1)).toBe(false);
    await s.close();
  });

  it("sleeps until a deferred entry is due, but not for one due after the deadline", async () => {
    const s = store();
    await s.inbox.enqueue(message("a"));
    const [claimed] = await s.inbox.claim(Date.now(), 60_000, 1);
    expect(claimed?.id).toBe("a");
    const dueAt = Date.now() + 150;
    await s.inbox.defer("a", dueAt);
    expect(await waitForDue(s.inbox, Date.now, dueAt - 100)).toBe(false);
    expect(await waitForDue(s.inbox, Date.now, dueAt + 1_000)).toBe(true);
    expect(Date.now()).toBeGreaterThanOrEqual(dueAt - 5);
    await s.close();
  });

  it("looks again within CLAIM_RECHECK_MS while someone else's claim runs, not at its end", async () => {
    const s = store();
    await s.inbox.enqueue(message("a"));
    const t0 = Date.now();
    // Another deliverer holds the message for up to 35 s (its delivery timeout and margin).
    await s.inbox.claim(t0, 35_000, 1);
    vi.useFakeTimers({ now: t0, toFake: ["setTimeout", "Date"] });
    try {
      let done = false;
      const waiting = waitForDue(s.inbox, Date.now, t0 + 60_000).then((r) => {
        done = true;
        return r;
      });
      await vi.advanceTimersByTimeAsync(CLAIM_RECHECK_MS + 10);
      expect(done, "the wait ended within CLAIM_RECHECK_MS of the claim").toBe(true);
      expect(await waiting).toBe(true);
    } finally {
      vi.useRealTimers();
    }
    await s.close();
  });
});

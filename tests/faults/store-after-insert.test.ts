import { afterEach, describe, expect, it } from "vitest";
import { postMessage } from "../support/fault-agents";
import { Acknowledged } from "../support/fault-checks";
import { type FaultyStore, faultyStore } from "../support/faulty-store";
import { waitFor } from "../support/free-port";
import { type LifecycleHarness, lifecycleHarness } from "../support/lifecycle-harness";
import { startReplyReceiver } from "../support/reply-receiver";

/**
 * Issue 22, item 2: the store fails right after a message was stored (Redis killed
 * mid-burst). Once the inbox insert has succeeded the answer is 202 (queued), never 503 —
 * a 503 makes the sender resend a message ClawRun has, and its resend reads "duplicate" — and
 * the agent's reply goes out through the outbox when the store is back. The store is the real
 * SQLite one, wrapped so that writes fail from the moment after the insert.
 */

let h: LifecycleHarness | null = null;
let receiver: Awaited<ReturnType<typeof startReplyReceiver>> | null = null;
afterEach(async () => {
  await h?.stop();
  h = null;
  await receiver?.stop();
  receiver = null;
});

async function runningAgent(): Promise<{ h: LifecycleHarness; faulty: FaultyStore }> {
  let faulty: FaultyStore | null = null;
  receiver = await startReplyReceiver(() => (h as LifecycleHarness).webhookSecret);
  h = await lifecycleHarness({
    config: { channels: { generic: { replyUrl: receiver.url } } },
    timings: { lockLeaseMs: 1_500 },
    wrapStore: (s) => {
      faulty = faultyStore(s);
      return faulty.store;
    },
  });
  expect((await h.manager.wake({ reason: "test", trigger: "operator" })).status).toBe("running");
  return { h, faulty: faulty as unknown as FaultyStore };
}

const repliesTo = (id: string) => receiver?.replies.filter((r) => r.inReplyTo === id) ?? [];

describe("faults: the store fails after a message was stored", () => {
  it("delivered inline, then the ack and the events fail: 202, and the reply is sent through the outbox once the store is back", async () => {
    const { h, faulty } = await runningAgent();
    // Everything but the claim fails: the agent gets the message and answers, then nothing
    // of it can be recorded (the ack, the delivery event, the reply in the outbox).
    faulty.failWritesAfterNextInsert((op) => op !== "inbox.claim");
    const sent = new Acknowledged();
    const m = { id: "after-insert-1", conversation: "s", text: "hello" };
    expect(await postMessage(h.url, h.webhookSecret, m, sent)).toEqual([202]);
    expect(faulty.refused).toContain("inbox.ack");
    faulty.heal();
    await waitFor("the reply to be sent", async () => repliesTo(m.id).length > 0, 20_000);
    await h.settled();
    expect(repliesTo(m.id)).toHaveLength(1);
    expect(repliesTo(m.id)[0]?.verified).toBe(true);
    expect(await h.store.inbox.count()).toEqual({ pending: 0, dead: 0 });
    // The sender's resend is a duplicate (it was stored); the reply is not sent twice.
    expect(await postMessage(h.url, h.webhookSecret, m, sent)).toEqual([200]);
    await h.settled();
    expect(repliesTo(m.id)).toHaveLength(1);
  }, 60_000);

  it("every write fails after the insert (the claim too): 202, then delivered and replied after the store is back", async () => {
    const { h, faulty } = await runningAgent();
    faulty.failWritesAfterNextInsert();
    const sent = new Acknowledged();
    const m = { id: "after-insert-2", conversation: "t", text: "hello" };
    expect(await postMessage(h.url, h.webhookSecret, m, sent)).toEqual([202]);
    await h.settled(); // the wake after the response fails too while the store is down
    faulty.heal();
    await h.manager.tick(); // the reconcile tick finds the queued message
    await waitFor("the reply to be sent", async () => repliesTo(m.id).length > 0, 20_000);
    expect(repliesTo(m.id)).toHaveLength(1);
    expect(await h.store.inbox.count()).toEqual({ pending: 0, dead: 0 });
  }, 60_000);
});

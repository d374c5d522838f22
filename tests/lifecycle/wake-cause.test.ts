import { afterEach, describe, expect, it } from "vitest";
import { waitFor } from "../support/free-port";
import { type LifecycleHarness, lifecycleHarness } from "../support/lifecycle-harness";

/**
 * Issue 22, item 17: with three servers, an agent that had gone to sleep with an empty inbox
 * was woken 35–45 s later with the trigger "message from generic" and no message sent. The
 * path: a server's wake-and-deliver run (the webhook's follow-up) waited in its drain for a
 * message another server held claimed — a claim lasts the delivery timeout + 5 s, 35 s by
 * default — and a second webhook on that server asked for a run meanwhile (coalesce.ts: one
 * more pass). By the time that pass woke, the other server had delivered the message and put
 * the agent to sleep; the pass still started a sandbox on the decision it had made before.
 * A wake now decides under the lifecycle lock from the inbox as it is, and names its cause.
 */

let h: LifecycleHarness | null = null;
afterEach(async () => {
  await h?.stop();
  h = null;
});

describe("lifecycle: a wake names its real cause and never wakes an agent without one", () => {
  it("a message run that waited while another server delivered and slept does not wake the agent again", async () => {
    h = await lifecycleHarness({ timings: { lockLeaseMs: 1_500 } });
    const a = h.manager; // the server whose delivery holds the claim, then puts the agent to sleep
    const b = await h.newManager(); // the server whose webhook follow-ups wait
    expect((await a.wake({ reason: "test", trigger: "operator" })).status).toBe("running");

    const now = Date.now();
    await h.store.inbox.enqueue({
      id: "m-1",
      channel: "generic",
      conversation: "c",
      text: "hi",
      receivedAt: now,
      meta: {},
    });
    // Server A claims it for its delivery (2 s here; 35 s with the default delivery timeout).
    expect((await h.store.inbox.claim(now, 2_000, 10)).map((m) => m.id)).toEqual(["m-1"]);

    // Two webhooks on server B: one run, and one more pass asked for while it runs.
    const first = b.wakeAndDeliver({ reason: "message from generic", trigger: "message" });
    const second = b.wakeAndDeliver({ reason: "message from generic", trigger: "message" });

    // Server A's delivery succeeds and the idle agent is put to sleep, inbox empty.
    expect(await h.store.inbox.ack("m-1")).toBe(true);
    expect((await a.sleep("idle")).status).toBe("sleeping");
    const sleptAt = Date.now();

    await Promise.all([first, second]);
    await h.settled();
    expect((await h.status()).status).toBe("sleeping");
    const wokenAfter = (await h.events("status.creating")).filter((e) => e.at >= sleptAt);
    expect(wokenAfter.map((e) => e.message)).toEqual([]);
  }, 60_000);

  it("a message wake names the message that caused it in the start event", async () => {
    h = await lifecycleHarness({ timings: { lockLeaseMs: 1_500 } });
    await h.store.inbox.enqueue({
      id: "m-2",
      channel: "generic",
      conversation: "c",
      text: "hi",
      receivedAt: Date.now(),
      meta: {},
    });
    await h.manager.wakeAndDeliver({ reason: "message from generic", trigger: "message" });
    await waitFor("delivery", async () => (await h?.store.inbox.count())?.pending === 0, 20_000);
    const [creating] = await h.events("status.creating");
    expect(creating?.message).toBe("message m-2 from generic");
    expect(creating?.details.trigger).toBe("message");
  }, 60_000);
});

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { LIFECYCLE } from "../../config/constants";
import type { Agent } from "../agents/types";
import { type Channel, ChannelSendError, type ReplyTarget } from "../channels/types";
import { inReplyTo, noticeId, replyId } from "../domain/outbox-ids";
import type { SandboxProvider } from "../providers/types";
import { SqliteStore } from "../store/sqlite/store";
import { sendReplies } from "./replies";

/** A channel whose platform answers from a script, recording what reached it. */
function scriptedChannel(answers: (to: ReplyTarget, text: string) => void) {
  const sent: { conversation: string; text: string }[] = [];
  const channel = {
    name: "chat",
    send: async (to: ReplyTarget, text: string) => {
      answers(to, text);
      sent.push({ conversation: to.conversation, text });
      return { sent: true, detail: "sent" };
    },
  } as unknown as Channel;
  return { channel, sent };
}

let dir: string | null = null;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = null;
});

function setup(channel: Channel, now: () => number = Date.now) {
  dir = mkdtempSync(join(tmpdir(), "clawrun-replies-"));
  const store = new SqliteStore(join(dir, "store.db"), { instance: "t" });
  const deps = {
    store,
    provider: {} as SandboxProvider,
    agent: {} as Agent,
    channels: new Map([["chat", channel]]),
    logger: pino({ level: "silent" }),
    clock: now,
    timings: { ...LIFECYCLE, deliveryRetryBaseMs: 10 },
    masterSecret: "replies-test-master-secret",
  };
  const queue = (n: number, conversation: string) =>
    store.outbox.enqueue({
      id: replyId(`m${n}`),
      channel: "chat",
      conversation,
      text: `reply ${n}`,
      receivedAt: 0,
      meta: { chat: conversation },
    });
  const events = async (type: string) =>
    (await store.events.list(100)).filter((e) => e.type === type);
  return { store, deps, queue, events };
}

describe("sendReplies: the outbox", () => {
  it("sends queued replies in order per conversation and removes them", async () => {
    const { channel, sent } = scriptedChannel(() => {});
    const { deps, queue, store, events } = setup(channel);
    for (const [n, c] of [
      [1, "a"],
      [2, "b"],
      [3, "a"],
    ] as const)
      await queue(n, c);
    expect(await sendReplies(deps)).toMatchObject({ sent: 3, deferred: 0, dead: 0 });
    expect(sent.filter((s) => s.conversation === "a").map((s) => s.text)).toEqual([
      "reply 1",
      "reply 3",
    ]);
    expect(await store.outbox.count()).toEqual({ pending: 0, dead: 0 });
    expect((await events("message.replied")).map((e) => e.details.messageId).sort()).toEqual([
      "m1",
      "m2",
      "m3",
    ]);
  });

  it("waits as long as a platform's 429 says, without counting it or letting later replies pass", async () => {
    let slowDown = 1;
    const { channel, sent } = scriptedChannel((to) => {
      if (to.messageId === "m1" && slowDown-- > 0)
        throw new ChannelSendError("429 Too Many Requests", { retryAfterMs: 300 });
    });
    const { deps, queue, store, events } = setup(channel);
    await queue(1, "a");
    await queue(2, "a");
    const first = await sendReplies(deps);
    expect(first).toMatchObject({ sent: 0, deferred: 1 });
    expect(sent).toEqual([]); // reply 2 waits behind reply 1
    const [pending] = await store.outbox.listPending(1);
    expect(pending?.attempts).toBe(0);
    expect(pending?.notBefore).toBeGreaterThan(Date.now());
    expect((await events("reply.deferred"))[0]?.message).toMatch(/asked to wait 1 s/);
    // Within a retry window the sender waits out the delay and then sends both, in order.
    const later = await sendReplies(deps, { waitUntil: Date.now() + 2_000 });
    expect(later.sent).toBe(2);
    expect(sent.map((s) => s.text)).toEqual(["reply 1", "reply 2"]);
  });

  it("retries other failures with backoff, then dead-letters the reply with an event", async () => {
    const { channel } = scriptedChannel(() => {
      throw new Error("platform answered 500");
    });
    const { deps, queue, store, events } = setup(channel);
    await queue(1, "a");
    const r = await sendReplies(deps, { waitUntil: Date.now() + 5_000 });
    expect(r.dead).toBe(1);
    expect(r.retried).toBe(LIFECYCLE.deliveryMaxAttempts - 1);
    expect(await store.outbox.count()).toEqual({ pending: 0, dead: 1 });
    const [dead] = await events("reply.dead-letter");
    expect(dead?.message).toMatch(/after 5 attempts.*platform answered 500/);
  });

  it("dead-letters at once what retrying cannot fix", async () => {
    const { channel } = scriptedChannel(() => {
      throw new ChannelSendError("the chat was deleted", { permanent: true });
    });
    const { deps, queue, store } = setup(channel);
    await queue(1, "a");
    expect(await sendReplies(deps)).toMatchObject({ dead: 1, retried: 0 });
    expect((await store.outbox.listDead(1))[0]?.lastError).toBe("the chat was deleted");
  });

  it("queues one reply per message even when the message is delivered twice", async () => {
    const { channel } = scriptedChannel(() => {});
    const { queue, store } = setup(channel);
    await queue(1, "a");
    await queue(1, "a");
    expect(await store.outbox.count()).toEqual({ pending: 1, dead: 0 });
  });
});

describe("outbox ids", () => {
  it.each([
    [replyId("telegram:9"), "telegram:9"],
    [noticeId("budget-daily-2026-12-02", "telegram:9"), "telegram:9"],
    ["plain", "plain"],
  ])("%s answers %s", (id, messageId) => expect(inReplyTo(id)).toBe(messageId));

  it("keeps a notice apart from the agent's reply to the same message", () => {
    expect(noticeId("budget-daily-2026-12-02", "m-1")).not.toBe(replyId("m-1"));
  });
});

import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ClawrunServer, startClawrun } from "../support/clawrun-server";
import { waitFor } from "../support/free-port";
import { eventsOf, instanceStatus, operatorGet, sendMessage } from "../support/messages";
import { printOutputOnFailure } from "../support/output-on-failure";
import { startReplyReceiver } from "../support/reply-receiver";

/**
 * The whole sleep/wake loop over HTTP against the production server: real sandboxes
 * (local provider), the real sidecar and the echo agent, replies posted to a local receiver.
 */
let server: ClawrunServer;
printOutputOnFailure("the ClawRun server", () => server?.output());
let receiver: Awaited<ReturnType<typeof startReplyReceiver>>;

beforeAll(async () => {
  receiver = await startReplyReceiver(() => server.secrets.webhook);
  server = await startClawrun({
    config: { sandbox: { activeDuration: 3 }, channels: { generic: { replyUrl: receiver.url } } },
    timings: { heartbeatIntervalMs: 500 },
  });
});
afterAll(async () => {
  await server?.stop();
  await receiver?.stop();
});

const countOf = (text: string) => Number(/message #(\d+)/.exec(text)?.[1]);
const replyTo = (id: string) => receiver.replies.find((r) => r.inReplyTo === id);
const waitForStatus = (status: string, ms = 30_000) =>
  waitFor(`status ${status}`, async () => (await instanceStatus(server)) === status, ms, 100);

describe("wake on message (generic webhook, end to end)", () => {
  it("queues a message to a never-started instance (202), wakes it, and posts the signed reply", async () => {
    const t0 = Date.now();
    const res = await sendMessage(server, { id: "first", conversation: "alice", text: "hello" });
    expect(Date.now() - t0).toBeLessThan(5_000); // generous bound; the real number is in the bench
    expect(res).toEqual({ status: 202, body: { status: "queued", id: "first" } });
    await waitFor("the reply", async () => replyTo("first"), 30_000);
    expect(replyTo("first")).toMatchObject({ conversation: "alice", verified: true });
    expect(countOf(replyTo("first")?.text ?? "")).toBe(1);
    expect(await instanceStatus(server)).toBe("running");
  });

  it("answers 200 with the agent's reply while running, and delivers a platform retry once", async () => {
    const res = await sendMessage(server, { id: "second", conversation: "alice", text: "again" });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: "delivered", id: "second" });
    expect(countOf(String(res.body.reply))).toBe(2);
    const retry = await sendMessage(server, { id: "second", conversation: "alice", text: "again" });
    expect(retry).toEqual({ status: 200, body: { status: "duplicate", id: "second" } });
    const third = await sendMessage(server, { id: "third", conversation: "alice", text: "three" });
    expect(countOf(String(third.body.reply))).toBe(3);
  });

  it("sleeps when idle and wakes from the snapshot with the conversation intact", async () => {
    await waitForStatus("sleeping");
    const res = await sendMessage(server, {
      id: "after-sleep",
      conversation: "alice",
      text: "still there?",
    });
    expect(res.status).toBe(202);
    await waitFor("the reply", async () => replyTo("after-sleep"), 30_000);
    expect(countOf(replyTo("after-sleep")?.text ?? "")).toBe(4);
    const running = (await eventsOf(server, "status.running"))[0];
    expect(String(running?.details.restoredFrom)).toMatch(/^snap_/);
  });

  it("wakes once for 50 concurrent messages and delivers each exactly once, in order per conversation", async () => {
    await waitForStatus("sleeping");
    const creatingBefore = (await eventsOf(server, "status.creating")).length;
    const conversations = Array.from({ length: 10 }, (_, c) => `burst-${c}`);
    const inline = new Map<string, string>();
    await Promise.all(
      conversations.map(async (conversation) => {
        for (let i = 1; i <= 5; i++) {
          const id = `${conversation}-${i}`;
          const res = await sendMessage(server, { id, conversation, text: `m${i}` });
          expect([200, 202]).toContain(res.status);
          if (res.status === 200) inline.set(id, String(res.body.reply));
        }
      }),
    );
    const all = conversations.flatMap((c) => [1, 2, 3, 4, 5].map((i) => `${c}-${i}`));
    await waitFor(
      "50 replies",
      async () => all.every((id) => inline.has(id) || replyTo(id)),
      60_000,
      200,
    );
    expect((await eventsOf(server, "status.creating")).length - creatingBefore).toBe(1);
    for (const id of all) {
      const posted = receiver.replies.filter((r) => r.inReplyTo === id);
      expect(posted.length + (inline.has(id) ? 1 : 0)).toBe(1);
      // The echo agent counts per conversation: message i must be the i-th it received.
      const reply = inline.get(id) ?? posted[0]?.text ?? "";
      expect(countOf(reply)).toBe(Number(id.split("-").at(-1)));
    }
  });

  it("queues messages that arrive while the snapshot is being taken and delivers them after the wake", async () => {
    // A large, incompressible file makes the snapshot take long enough to race against. The
    // bytes are made first (seconds on a loaded machine); each attempt then sends a message,
    // which restarts the 3 s idle clock, and writes at once. If the agent still fell asleep
    // before the write (its directory is then gone), try again.
    const big = randomBytes(300 * 1024 * 1024);
    for (let attempt = 1; ; attempt++) {
      await sendMessage(server, {
        id: `wake-for-big-${attempt}`,
        conversation: "bob",
        text: "wake",
      });
      await waitForStatus("running");
      const { instance } = await operatorGet<{ instance: { sandboxId: string } }>(
        server,
        "/api/sandbox",
      );
      try {
        writeFileSync(
          join(server.stateDir, "sandboxes", instance.sandboxId, "root", "big.bin"),
          big,
        );
        break;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "ENOENT" || attempt >= 5) throw err;
      }
    }
    await waitForStatus("snapshotting", 30_000);
    const sent: string[] = [];
    for (let i = 1; i <= 5; i++) {
      const id = `during-snapshot-${i}`;
      const res = await sendMessage(server, { id, conversation: "carol", text: `c${i}` });
      expect(res.status).toBe(202);
      sent.push(id);
    }
    await waitFor(
      "replies to messages sent during the snapshot",
      async () => sent.every((id) => replyTo(id)),
      60_000,
      200,
    );
    expect(sent.map((id) => countOf(replyTo(id)?.text ?? ""))).toEqual([1, 2, 3, 4, 5]);
    // Its own waits add up to ~100 s on a slow machine (a 300 MB snapshot, then a restore).
  }, 120_000);
});

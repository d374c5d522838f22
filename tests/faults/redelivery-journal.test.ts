import type { ChildProcess } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { REPLY_JOURNAL_PATH } from "../../src/protocol/door";
import { postMessage } from "../support/fault-agents";
import { Acknowledged } from "../support/fault-checks";
import { waitFor } from "../support/free-port";
import { type LifecycleHarness, lifecycleHarness } from "../support/lifecycle-harness";
import { startReplyReceiver } from "../support/reply-receiver";
import { serverInChild } from "../support/server-in-child";

/**
 * Issue 23, item 4: the server dies after the agent answered and before ClawRun acknowledged
 * the message, so the restarted server redelivers it. The sidecar's reply journal answers the
 * redelivery: the daemon (which numbers its answers and does no dedupe of its own) sees the
 * message once, and the reply that goes out is its first answer. The server is a real process
 * (tests/fixtures/server-in-child.ts), SIGSTOPped while the answer is on its way, so it can
 * never acknowledge, then SIGKILLed once the door has journaled the answer.
 */

const children: ChildProcess[] = [];
let h: LifecycleHarness | null = null;
let receiver: Awaited<ReturnType<typeof startReplyReceiver>> | null = null;
afterEach(async () => {
  for (const c of children.splice(0)) c.kill("SIGKILL");
  await h?.stop();
  h = null;
  await receiver?.stop();
  receiver = null;
});

/** Answers each POST after `holdMs` with "answer <n>", n counting every call it ever got. */
function countingAgent(holdMs: number) {
  const script = `
const http = require("http"), fs = require("fs"), path = require("path");
const calls = path.join(process.env.HOME || process.cwd(), "calls.log");
http.createServer((q, s) => {
  if (q.method !== "POST") { s.end("ok"); return; }
  let b = ""; q.on("data", (c) => (b += c)); q.on("end", () => {
    fs.appendFileSync(calls, JSON.parse(b).id + "\\n");
    const n = fs.readFileSync(calls, "utf8").split("\\n").filter(Boolean).length;
    setTimeout(() => { s.setHeader("content-type", "application/json"); s.end(JSON.stringify({ reply: "answer " + n })); }, ${holdMs});
  });
}).listen(process.env.PORT);`;
  return {
    type: "command",
    command: "node",
    args: ["-e", script],
    delivery: { path: "/message", format: "json", timeoutMs: 5_000 },
  };
}

it("a message redelivered after the server died between answer and ack is answered once, the same", async () => {
  receiver = await startReplyReceiver(() => (h as LifecycleHarness).webhookSecret);
  h = await lifecycleHarness({
    // The dead server's claim ends the delivery timeout (5 s) + claimMarginMs after it was
    // taken; only then may the restarted server redeliver.
    timings: { lockLeaseMs: 1_500, tickIntervalMs: 500, claimMarginMs: 500 },
    config: { agent: countingAgent(1_500), channels: { generic: { replyUrl: receiver.url } } },
  });
  const harness = h;
  expect((await harness.manager.wake({ reason: "test", trigger: "operator" })).status).toBe(
    "running",
  );
  const sandboxId = (await harness.status()).sandboxId as string;
  const root = (await harness.provider.get(sandboxId)).root;
  const read = (rel: string) =>
    existsSync(join(root, rel)) ? readFileSync(join(root, rel), "utf8") : "";

  const server = await serverInChild(harness, children);
  const msg = { id: "m-redelivered", conversation: "c", text: "hi" };
  // A running agent is answered inline, so the webhook waits for the answer: the server dies first.
  const posted = postMessage(server.url, harness.webhookSecret, msg, new Acknowledged());
  await waitFor(
    "the daemon to get the message",
    async () => read("calls.log").includes(msg.id),
    30_000,
    5,
  );
  // Frozen while the daemon still thinks: its answer reaches the door, never the ack.
  server.child.kill("SIGSTOP");
  await waitFor(
    "the door to journal the answer",
    async () => read(REPLY_JOURNAL_PATH).includes(msg.id),
    10_000,
    20,
  );
  const gone = new Promise((r) => server.child.once("exit", r));
  server.child.kill("SIGKILL");
  await gone;
  expect(await posted).toEqual([0]);
  expect((await harness.store.inbox.count()).pending).toBe(1);

  // The restarted server (after the dead one's lease) redelivers.
  await new Promise((r) => setTimeout(r, 1_600));
  const manager = await harness.newManager();
  await waitFor(
    "the redelivery to be acknowledged and its reply sent",
    async () => {
      await manager.tick();
      await harness.settled();
      return (
        (await harness.store.inbox.count()).pending === 0 && (receiver?.replies.length ?? 0) > 0
      );
    },
    30_000,
    200,
  );
  expect(read("calls.log").split("\n").filter(Boolean)).toEqual([msg.id]);
  expect(receiver.replies.map((r) => [r.inReplyTo, r.text])).toEqual([[msg.id, "answer 1"]]);

  // The journal is part of the agent's state: a snapshot carries it to the next sandbox.
  expect((await manager.sleep("test")).status).toBe("sleeping");
  expect((await manager.wake({ reason: "test", trigger: "operator" })).status).toBe("running");
  const woken = (await harness.provider.get((await harness.status()).sandboxId as string)).root;
  expect(readFileSync(join(woken, REPLY_JOURNAL_PATH), "utf8")).toContain("answer 1");
}, 90_000);

import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { SandboxLifecycleManager } from "../../src/server/sandbox/manager";
import { postMessage, slowEchoAgent } from "../support/fault-agents";
import { Acknowledged, expectRecovered } from "../support/fault-checks";
import { waitFor } from "../support/free-port";
import { type LifecycleHarness, lifecycleHarness } from "../support/lifecycle-harness";
import { serverInChild } from "../support/server-in-child";

/**
 * ClawRun's server SIGKILLed (a) after a 202 and before the wake started, (b) mid-restore,
 * (c) mid-delivery, (d) mid-snapshot — then restarted: a new app on the same store and state
 * dir whose first tick must repair (docs/lifecycle.md, "Repairs"). The killed server is a real
 * process (tests/fixtures/server-in-child.ts or wake-in-child.ts).
 */

let h: LifecycleHarness | null = null;
const children: ChildProcess[] = [];
afterEach(async () => {
  for (const c of children.splice(0)) c.kill("SIGKILL");
  await h?.stop();
  h = null;
});
const harness = () => h as LifecycleHarness;

/**
 * One lifecycle operation in another process, loaded ahead (the app takes seconds to load
 * through tsx) and started on `go()`, so the load overlaps the test's own set-up.
 */
function opInChild(op: "wake" | "sleep"): { go(): ChildProcess } {
  const child = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      "tests/fixtures/wake-in-child.ts",
      JSON.stringify({ ...harness().params, op, onGo: true }),
    ],
    { stdio: ["pipe", "ignore", "ignore"] },
  );
  children.push(child);
  return {
    go() {
      child.stdin?.write("go\n");
      return child;
    },
  };
}

async function sigkill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise((r) => child.once("exit", r));
  child.kill("SIGKILL");
  await gone;
}

/**
 * The restarted server: a new app on the same state dir and store. It comes up once the dead
 * server's lock lease has run out, as a real restart takes longer than that (docs/lifecycle.md:
 * a holder that dies releases the lock within one lease); its first tick must repair. The app
 * is built while the lease runs out, and the lease is waited on, not slept past.
 */
async function restart(): Promise<SandboxLifecycleManager> {
  const [manager] = await Promise.all([
    harness().newManager(),
    harness().lockFree(timings.lockLeaseMs + 10_000),
  ]);
  return manager;
}

const status = async () => (await harness().status()).status;
let seq = 0;
const id = (tag: string) => `${tag}-${++seq}`;

/** Puts the agent to sleep with a snapshot holding one message per conversation. */
async function sleepingAgentWithHistory(sent: Acknowledged, conversations: string[]) {
  for (const c of conversations)
    await postMessage(harness().url, harness().webhookSecret, msg(c), sent);
  await harness().settled();
  expect((await harness().store.inbox.count()).pending).toBe(0);
  expect((await harness().manager.sleep("test")).status).toBe("sleeping");
}

const msg = (conversation: string) => ({ id: id(conversation), conversation, text: "hi" });

const timings = { lockLeaseMs: 1_500, tickIntervalMs: 500 };

describe("faults: ClawRun's server SIGKILLed, then restarted", () => {
  it("(a) after a 202, before the wake started: the acknowledged messages are delivered once, in order", async () => {
    h = await lifecycleHarness({ timings });
    const sent = new Acknowledged();
    const starting = serverInChild(harness(), children); // loads while the agent goes to sleep
    await sleepingAgentWithHistory(sent, ["a", "b"]);
    const server = await starting;
    expect(await postMessage(server.url, harness().webhookSecret, msg("a"), sent)).toEqual([202]);
    for (const c of ["b", "a", "b"])
      expect(await postMessage(server.url, harness().webhookSecret, msg(c), sent)).toEqual([202]);
    await sigkill(server.child); // its after-the-response wakes die with it
    await expectRecovered(harness(), sent, await restart());
  }, 90_000);

  it("(b) mid-restore: the restarted server repairs the half-made sandbox and delivers", async () => {
    h = await lifecycleHarness({ timings });
    const sent = new Acknowledged();
    const starting = serverInChild(harness(), children); // loads while the agent goes to sleep
    await sleepingAgentWithHistory(sent, ["a"]);
    const server = await starting;
    expect(await postMessage(server.url, harness().webhookSecret, msg("a"), sent)).toEqual([202]);
    await waitFor(
      "the restore to be under way",
      async () => (await status()) === "creating",
      20_000,
      5,
    );
    await sigkill(server.child);
    await expectRecovered(harness(), sent, await restart());
  }, 90_000);

  it("(c) mid-delivery (the agent stored the message, ClawRun had not acknowledged it): redelivered, stored once", async () => {
    // The dead server's claim ends 4 s (delivery timeout) + claimMarginMs after it was taken:
    // then the restarted server redelivers. A short margin keeps that wait to seconds.
    h = await lifecycleHarness({
      timings: { ...timings, claimMarginMs: 500 },
      // A redelivery of a message the agent already stored is answered at once: only the first
      // delivery needs the window to strike in.
      config: { agent: slowEchoAgent(1_500, 4_000, 0) },
    });
    const sent = new Acknowledged();
    const starting = serverInChild(harness(), children); // loads while the agent goes to sleep
    await sleepingAgentWithHistory(sent, ["c"]);
    const server = await starting;
    const first = msg("c");
    expect(await postMessage(server.url, harness().webhookSecret, first, sent)).toEqual([202]);
    await waitFor(
      "the woken agent to have stored the message",
      async () => {
        const state = await harness().status();
        if (state.status !== "running") return false;
        const root = (await harness().provider.get(state.sandboxId as string)).root;
        return readFileSync(join(root, "conversations", "c.jsonl"), "utf8").includes(first.id);
      },
      30_000,
      5,
    );
    await sigkill(server.child);
    expect((await harness().store.inbox.count()).pending).toBe(1); // not acknowledged by the agent
    await expectRecovered(harness(), sent, await restart());
  }, 90_000);

  it("(d) mid-snapshot, with messages arriving meanwhile: snapshot completed by the repair, nothing lost", async () => {
    h = await lifecycleHarness({ timings });
    const sleeper = opInChild("sleep");
    const sent = new Acknowledged();
    for (const c of ["d", "e", "d"])
      await postMessage(harness().url, harness().webhookSecret, msg(c), sent);
    await waitFor(
      "delivery",
      async () => (await harness().store.inbox.count()).pending === 0,
      30_000,
      50,
    );
    const child = sleeper.go();
    // The child imports the whole server first (tsx): 20 s was not enough on a loaded machine.
    await waitFor(
      "the snapshot to start",
      async () => (await status()) === "snapshotting",
      45_000,
      5,
    );
    await sigkill(child);
    // Messages that arrive while the snapshotting server is dead are stored and acknowledged.
    for (const c of ["e", "d"]) {
      const statuses = await postMessage(harness().url, harness().webhookSecret, msg(c), sent);
      expect(statuses.at(-1)).toBe(202);
    }
    await expectRecovered(harness(), sent, await restart());
  }, 90_000);
});

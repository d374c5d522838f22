import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { postMessage } from "../support/fault-agents";
import { Acknowledged } from "../support/fault-checks";
import { waitFor } from "../support/free-port";
import { type LifecycleHarness, lifecycleHarness } from "../support/lifecycle-harness";

/**
 * Issue 22, item 10: a message sent while the daemon restarts (SIGKILLed; the sidecar restarts
 * it after `restartDelayMs`) is delivered within seconds, not at the next tick. The harness
 * runs no tick at all, so before the fix the message stayed queued for good.
 */

let h: LifecycleHarness | null = null;
afterEach(async () => {
  await h?.stop();
  h = null;
});
const harness = () => h as LifecycleHarness;

/**
 * The echo daemon's pids in the sandbox whose root is `root` (its working directory; its
 * environment may not show in /proc when it ran in the warm Node, docs/local-provider.md).
 */
function echoDaemons(root: string): number[] {
  const pids: number[] = [];
  for (const p of readdirSync("/proc").filter((x) => /^\d+$/.test(x))) {
    try {
      const cmd = readFileSync(`/proc/${p}/cmdline`, "utf8");
      if (readlinkSync(`/proc/${p}/cwd`) === root && cmd.includes("agent-echo.js")) {
        pids.push(Number(p));
      }
    } catch {
      // gone meanwhile, or another user's
    }
  }
  return pids;
}

async function killDaemonThenSend(id: string): Promise<void> {
  const sandboxId = (await harness().status()).sandboxId as string;
  const { root } = await harness().provider.get(sandboxId);
  const daemons = echoDaemons(root);
  expect(daemons).toHaveLength(1);
  process.kill(daemons[0] as number, "SIGKILL");
  const statuses = await postMessage(
    harness().url,
    harness().webhookSecret,
    { id, conversation: "c", text: "while restarting" },
    new Acknowledged(),
  );
  expect(statuses.at(-1)).toBeLessThan(300);
}

const delivered = async (id: string) =>
  (await harness().events("message.delivered")).some((e) => e.details.messageId === id);

describe("faults: a message sent while the daemon restarts", () => {
  it("is delivered once the restarted daemon answers, without waiting for a tick", async () => {
    h = await lifecycleHarness({ sidecarTimings: { restartDelayMs: 1_000 } });
    await harness().manager.wake({ reason: "test", trigger: "operator" });
    await killDaemonThenSend("m-restart-1");
    // A generous bound: the restart takes ~1 s; the tick (never, here) would take a minute.
    await waitFor("delivery after the restart", () => delivered("m-restart-1"), 20_000);
    expect((await harness().store.inbox.count()).pending).toBe(0);
    expect((await harness().status()).status).toBe("running");
  }, 60_000);

  it("is delivered when the sidecar's heartbeat says the daemon is back, after the sender stopped waiting", async () => {
    h = await lifecycleHarness({
      // The delivering run gives up at once and no tick runs: only the sidecar's
      // `daemonReturned` heartbeat is left to resume the delivery.
      timings: { daemonReturnBudgetMs: 1 },
      sidecarTimings: { restartDelayMs: 1_500 },
    });
    await harness().manager.wake({ reason: "test", trigger: "operator" });
    await killDaemonThenSend("m-restart-2");
    await waitFor("delivery after daemonReturned", () => delivered("m-restart-2"), 20_000);
    expect((await harness().store.inbox.count()).pending).toBe(0);
    // The same heartbeat leaves an event, which moves the dashboard's live marker at once.
    const back = await harness().events("daemon.back");
    expect(back.map((e) => e.message)).toEqual(["the daemon is listening again after restart 1"]);
  }, 60_000);
});

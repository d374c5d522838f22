import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { postMessage, slowEchoAgent } from "../support/fault-agents";
import { Acknowledged } from "../support/fault-checks";
import { waitFor } from "../support/free-port";
import { type LifecycleHarness, lifecycleHarness } from "../support/lifecycle-harness";

/**
 * Issue 22, item 4: a turn longer than activeDuration is not interrupted by a snapshot. The
 * daemon holds its answer for several activeDurations and writes no file meanwhile; the
 * sidecar reports the open delivery (`openDeliverySince`) and the rest policy treats it as
 * activity up to maxTurnDuration.
 */

let h: LifecycleHarness | null = null;
afterEach(async () => {
  await h?.stop();
  h = null;
});
const harness = () => h as LifecycleHarness;

/** Starts the agent, sends one message and waits until the daemon holds it (its answer comes later). */
async function sendLongTurn(id: string): Promise<void> {
  await harness().manager.wake({ reason: "test", trigger: "operator" });
  const { root } = await harness().provider.get((await harness().status()).sandboxId as string);
  void postMessage(
    harness().url,
    harness().webhookSecret,
    { id, conversation: "long", text: "think hard" },
    new Acknowledged(),
  );
  const file = join(root, "conversations", "long.jsonl");
  await waitFor(
    "the daemon to hold the message",
    async () => existsSync(file) && readFileSync(file, "utf8").includes(id),
    20_000,
    20,
  );
}

const delivered = async (id: string) =>
  (await harness().events("message.delivered")).some((e) => e.details.messageId === id);

describe("lifecycle: a long turn (real sidecar, slow daemon, short activeDuration)", () => {
  it("stays running while the message is answered, then sleeps once idle", async () => {
    h = await lifecycleHarness({
      config: { sandbox: { activeDuration: 1 }, agent: slowEchoAgent(4_000) },
    });
    await sendLongTurn("turn-1");
    // 4 s of answering with no file activity: 4 × activeDuration.
    const seen = new Set<string>();
    while (!(await delivered("turn-1"))) {
      seen.add((await harness().status()).status);
      await new Promise((r) => setTimeout(r, 100));
    }
    expect([...seen]).toEqual(["running"]);
    expect(await harness().events("status.snapshotting")).toEqual([]);
    await waitFor("sleep once idle", async () => (await harness().status()).status === "sleeping");
    expect(await harness().events("delivery.stuck")).toEqual([]);
  }, 90_000);

  it("a turn past maxTurnDuration is reported stuck and no longer keeps the agent awake", async () => {
    h = await lifecycleHarness({
      config: {
        sandbox: { activeDuration: 1, maxTurnDuration: 2 },
        // Open well past maxTurnDuration, so the stuck report comes while it is still open.
        agent: slowEchoAgent(5_000),
      },
    });
    await sendLongTurn("turn-2");
    await waitFor(
      "delivery.stuck",
      async () => (await harness().events("delivery.stuck")).length > 0,
      20_000,
    );
    const [stuck] = await harness().events("delivery.stuck");
    expect(stuck?.details.openDeliverySince).toEqual(expect.any(Number));
    // Rest proceeds; the sleep still lets the delivery under way finish first.
    await waitFor("sleeping", async () => (await harness().status()).status === "sleeping", 30_000);
    expect(await delivered("turn-2")).toBe(true);
  }, 90_000);
});

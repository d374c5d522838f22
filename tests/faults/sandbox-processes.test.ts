import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { readProcessRecords } from "../../src/server/providers/local/process-groups";
import { sandboxLayout } from "../../src/server/providers/local/sandbox-meta";
import { postMessage, slowEchoAgent } from "../support/fault-agents";
import { Acknowledged, expectRecovered, sandboxProcesses } from "../support/fault-checks";
import { waitFor } from "../support/free-port";
import { type LifecycleHarness, lifecycleHarness } from "../support/lifecycle-harness";

/**
 * Processes inside the sandbox die: the sidecar SIGKILLed while its daemon keeps running, and
 * the daemon SIGKILLed while it holds a delivery. Each ends with the suite's three checks.
 */

let h: LifecycleHarness | null = null;
afterEach(async () => {
  await h?.stop();
  h = null;
});
const harness = () => h as LifecycleHarness;
let seq = 0;
const msg = (conversation: string) => ({ id: `${conversation}-${++seq}`, conversation, text: "x" });
const post = (m: ReturnType<typeof msg>, sent: Acknowledged) =>
  postMessage(harness().url, harness().webhookSecret, m, sent, Date.now() + 20_000);

async function currentRoot(): Promise<{ id: string; root: string }> {
  const id = (await harness().status()).sandboxId as string;
  return { id, root: (await harness().provider.get(id)).root };
}

/** Live pids whose HOME is `root` (the daemon's environment names its sandbox root). */
function processesWithHome(root: string): number[] {
  const pids: number[] = [];
  for (const p of readdirSync("/proc").filter((x) => /^\d+$/.test(x))) {
    try {
      const env = readFileSync(`/proc/${p}/environ`, "utf8").split("\0");
      const cmd = readFileSync(`/proc/${p}/cmdline`, "utf8");
      if (env.includes(`HOME=${root}`) && cmd.includes("createServer")) pids.push(Number(p));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

describe("faults: processes inside the sandbox die", () => {
  it("the sidecar SIGKILLed while the daemon runs: the next tick saves and stops the sandbox (daemon included), messages delivered once", async () => {
    h = await lifecycleHarness({ timings: { lockLeaseMs: 1_500 } });
    const sent = new Acknowledged();
    await post(msg("s"), sent);
    await waitFor(
      "delivery",
      async () => (await harness().store.inbox.count()).pending === 0,
      30_000,
    );
    const { id } = await currentRoot();
    const layout = sandboxLayout(join(harness().stateDir, "sandboxes", id));
    const sidecar = readProcessRecords(layout).find((r) =>
      /sidecar/.test(readFileSync(`/proc/${r.pid}/cmdline`, "utf8")),
    );
    expect(sidecar, "the sidecar's process record").toBeDefined();
    process.kill(sidecar?.pid as number, "SIGKILL"); // the leader only: its daemon lives on
    await waitFor("the sidecar to be gone", async () => {
      const left = sandboxProcesses(harness()).get(id) ?? [];
      return !left.some((p) => p.includes("sidecar")) && left.length > 0;
    });
    await harness().manager.tick();
    expect((await harness().status()).status).toBe("sleeping");
    for (const c of ["s", "t", "s"]) await post(msg(c), sent);
    await expectRecovered(harness(), sent);
  }, 90_000);

  it("the daemon SIGKILLed mid-delivery: the supervisor restarts it and the message is redelivered, stored once", async () => {
    h = await lifecycleHarness({
      timings: { lockLeaseMs: 1_500, deliveryRetryBaseMs: 200 },
      sidecarTimings: { restartDelayMs: 200 },
      config: { agent: slowEchoAgent(2_000) },
    });
    const sent = new Acknowledged();
    await harness().manager.wake({ reason: "test", trigger: "operator" });
    const { root } = await currentRoot();
    const first = msg("k");
    await post(first, sent);
    await waitFor(
      "the agent to hold the message",
      async () => readFileSync(join(root, "conversations", "k.jsonl"), "utf8").includes(first.id),
      20_000,
      5,
    );
    const daemons = processesWithHome(root);
    expect(daemons).toHaveLength(1);
    process.kill(daemons[0] as number, "SIGKILL");
    await post(msg("k"), sent);
    await expectRecovered(harness(), sent);
    expect((await harness().store.inbox.listDead(10)).length).toBe(0);
  }, 90_000);
});

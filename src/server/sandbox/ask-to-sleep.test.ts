import { describe, expect, it } from "vitest";
import type { SleepPrepareAnswer } from "../agents/types";
import { askToSleep } from "./ask-to-sleep";

const settings = { leaseMs: 300, minRetryMs: 10, maxRetryMs: 300 };

/** A prepare that answers from `script` in turn (the last one repeats); "hang" never answers. */
function scripted(script: (SleepPrepareAnswer | "hang")[]) {
  let calls = 0;
  const prepare = (): Promise<SleepPrepareAnswer> => {
    const next = script[Math.min(calls++, script.length - 1)];
    return next === "hang" || next === undefined ? new Promise(() => {}) : Promise.resolve(next);
  };
  return { prepare, calls: () => calls };
}

describe("askToSleep", () => {
  it("returns busy at once with the agent's hint, then ready on the next ask", async () => {
    const agent = scripted([
      { ready: false, retryAfterMs: 20_000 },
      { ready: true, leaseMs: 120_000 },
    ]);
    const input = {
      prepare: agent.prepare,
      deliveryOpen: async () => false,
      clock: Date.now,
      settings: { ...settings, maxRetryMs: 60_000 },
    };
    expect(await askToSleep(input)).toMatchObject({ action: "wait", retryAfterMs: 20_000 });
    expect(await askToSleep(input)).toMatchObject({ action: "snapshot", suspended: true });
    expect(agent.calls()).toBe(2);
  });

  it("an agent that never answers holds the sleep for the lease, then it goes ahead", async () => {
    const agent = scripted(["hang"]);
    const started = Date.now();
    const decision = await askToSleep({
      prepare: agent.prepare,
      deliveryOpen: async () => false,
      clock: Date.now,
      settings,
      askTimeoutMs: 50,
    });
    expect(decision).toMatchObject({ action: "snapshot", suspended: false });
    expect(Date.now() - started).toBeGreaterThanOrEqual(settings.leaseMs);
    expect(agent.calls()).toBeGreaterThan(1);
  });

  it("an agent that never answers while a delivery is open is not snapshotted", async () => {
    const agent = scripted([
      "hang",
      "hang",
      "hang",
      "hang",
      "hang",
      "hang",
      "hang",
      "hang",
      { ready: true, leaseMs: 1 },
    ]);
    const decision = await askToSleep({
      prepare: agent.prepare,
      deliveryOpen: async () => true,
      clock: Date.now,
      settings,
      askTimeoutMs: 50,
    });
    // It kept asking past the lease (the delivery kept it busy) until the agent agreed.
    expect(decision).toMatchObject({ action: "snapshot", suspended: true });
    expect(agent.calls()).toBe(9);
  });
});

import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { GATEWAY_USER_AGENT } from "../support/gateway-user-agent";
import { type LifecycleHarness, lifecycleHarness } from "../support/lifecycle-harness";
import {
  startVercelSandboxEmulator,
  type VercelSandboxEmulator,
} from "../support/vercel-sandbox-emulator";

/**
 * The sandbox's network policy as the provider receives it (the Vercel provider against its
 * API emulator, which records each session's policy): an agent that calls its model through
 * ClawRun's gateway gets ClawRun's host allowed under "deny-all" or an allow-list.
 */
let h: LifecycleHarness | null = null;
let emulator: VercelSandboxEmulator;
beforeAll(async () => {
  emulator = await startVercelSandboxEmulator();
});
afterEach(async () => {
  await h?.stop();
  h = null;
});
afterAll(async () => {
  await emulator?.close();
});

async function policyAfterWake(agent: unknown, networkPolicy: unknown): Promise<unknown> {
  h = await lifecycleHarness({
    config: {
      instance: { name: `policy-${Math.random().toString(36).slice(2, 8)}` },
      ...(agent === undefined ? {} : { agent }),
      sandbox: {
        activeDuration: 60,
        provider: "vercel",
        vercel: { mode: "snapshot" },
        networkPolicy,
      },
    },
    env: emulator.env,
  });
  expect((await h.manager.wake({ reason: "test", trigger: "operator" })).status).toBe("running");
  const sandboxId = (await h.status()).sandboxId as string;
  const { service } = emulator;
  return service.session(service.sandbox(sandboxId).currentSessionId).networkPolicy;
}

describe("network policy of a sandbox whose agent uses the model gateway", () => {
  it.each<[string, unknown, unknown, unknown]>([
    ["deny-all allows ClawRun's host", GATEWAY_USER_AGENT, "deny-all", ["127.0.0.1"]],
    [
      "an allow-list gets ClawRun's host added",
      GATEWAY_USER_AGENT,
      { allow: ["registry.npmjs.org"] },
      ["registry.npmjs.org", "127.0.0.1"],
    ],
    ["an agent without a model keeps deny-all", undefined, "deny-all", null],
  ])(
    "%s",
    async (_name, agent, policy, allowed) => {
      const applied = await policyAfterWake(agent, policy);
      expect(applied).toEqual(
        allowed === null ? { mode: "deny-all" } : { mode: "custom", allowedDomains: allowed },
      );
    },
    60_000,
  );
});

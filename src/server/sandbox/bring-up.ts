import { heartbeatSecret } from "../auth/derive-key";
import type { InstanceState, Versioned } from "../domain/instance-state";
import { commandModelEnv } from "../model-gateway/agent-model";
import { modelCredential } from "../model-gateway/credential";
import type { ManagedSandbox } from "../providers/types";
import { mountAgentLayer, recordLayerBoot } from "./agent-layer";
import { type LifecycleDeps, startupBudgetMs } from "./deps";
import { type HealthOutcome, waitForHealth } from "./health-wait";
import type { HeldLock } from "./lifecycle-lock";
import { launchSidecar, provisionFiles } from "./provisioning";
import { sidecarClient } from "./sidecar-client";
import type { StateCell } from "./state-cell";

/**
 * docs/lifecycle.md, "Start and wake" steps 4–5 for a sandbox just obtained: provision the
 * agent and the sidecar, launch the sidecar (status `starting`), wait for health. Phase
 * timings are added to `timings`; provider failures throw.
 */
export async function bringUp(
  d: LifecycleDeps,
  cell: StateCell,
  lock: HeldLock,
  sandbox: ManagedSandbox,
  cur: Versioned<InstanceState>,
  timings: Record<string, number>,
): Promise<{ cur: Versioned<InstanceState>; health: HealthOutcome }> {
  await lock.confirm();
  // Before the files: the launcher they start looks for the mounted layer.
  const layer = await mountAgentLayer(d, sandbox, timings);

  let mark = d.clock();
  await lock.confirm();
  const files = await provisionFiles({
    sandbox,
    agent: d.agent,
    parentUrl: d.publicUrl,
    tools: d.config.sandbox.tools,
    heartbeatIntervalMs: d.timings.heartbeatIntervalMs,
    sidecarTimings: d.sidecarTimings,
  });
  await sandbox.writeFiles(files);
  timings.provisionMs = d.clock() - mark;

  mark = d.clock();
  await lock.confirm();
  await launchSidecar(sandbox, {
    heartbeatSecret: heartbeatSecret(d.masterSecret, sandbox.id),
    daemonEnv: { ...d.agent.daemon().env, ...gatewayEnvFor(d, sandbox.id) },
    protectionBypass: d.protectionBypass,
  });
  timings.sidecarStartMs = d.clock() - mark;
  cur = await cell.transition(
    cur,
    "starting",
    {},
    { reason: "sidecar launched; waiting for the daemon" },
  );

  // Health, then the agent's own readiness, both through the sidecar's signed door.
  const door = sidecarClient(sandbox, d.masterSecret);
  const agentReady = d.agent.ready?.bind(d.agent);
  const health = await waitForHealth(door, {
    budgetMs: startupBudgetMs(d),
    pollMs: d.timings.healthPollMs,
    ready: agentReady && ((signal) => agentReady(door, signal)),
  });
  timings.healthyMs = health.waitedMs;
  if (health.phases.sidecarMs !== null) timings.sidecarUpMs = health.phases.sidecarMs;
  if (health.phases.daemonMs !== null) timings.daemonListeningMs = health.phases.daemonMs;
  if (layer) await recordLayerBoot(d, sandbox.id, layer, health.ok);
  return { cur, health };
}

/**
 * An agent section with `model: {...}` (a `command` agent) gets the gateway's URL and this
 * sandbox's model credential in its daemon's environment; the real key stays in ClawRun.
 */
function gatewayEnvFor(d: LifecycleDeps, sandboxId: string): Record<string, string> {
  const section = d.config.agent as unknown as { model?: unknown };
  if (typeof section.model !== "object" || section.model === null) return {};
  return commandModelEnv(d.publicUrl, modelCredential(d.masterSecret, sandboxId));
}

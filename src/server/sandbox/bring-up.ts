import { heartbeatSecret } from "../../protocol/derive-key";
import type { InstanceState, Versioned } from "../domain/instance-state";
import { type SidecarClient, sidecarClient } from "../door/sidecar-client";
import { agentModelOf, commandModelEnv } from "../model-gateway/agent-model";
import { modelCredential } from "../model-gateway/credential";
import type { ManagedSandbox } from "../providers/types";
import { mountAgentLayer, recordLayerBoot } from "./agent-layer";
import { type LifecycleDeps, startupBudgetMs } from "./deps";
import { type HealthOutcome, waitForHealth } from "./health-wait";
import type { HeldLock } from "./lifecycle-lock";
import { launchSidecar, provisionFiles } from "./provisioning";
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
    daemonEnv: {
      ...d.agent.daemon().env,
      ...d.agent.sandboxEnv?.(sandbox.id),
      ...modelEnvFor(d, sandbox.id, cur.value.bootId),
    },
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
  const health = await waitForHealth(door, {
    budgetMs: startupBudgetMs(d),
    pollMs: d.timings.healthPollMs,
    ready: agentReadiness(d.agent, door),
  });
  timings.healthyMs = health.waitedMs;
  if (health.phases.sidecarMs !== null) timings.sidecarUpMs = health.phases.sidecarMs;
  if (health.phases.daemonMs !== null) timings.daemonListeningMs = health.phases.daemonMs;
  if (layer) await recordLayerBoot(d, sandbox.id, layer, health.ok);
  return { cur, health };
}

/**
 * The agent's readiness, preceded once by its resume (issue 23, item 3): a sandbox restored
 * with its memory (a resumable provider) may hold an agent still suspended for the snapshot,
 * which answers "not ready" until it is resumed. A resume that fails is not fatal: an agent
 * restarted from files was never suspended.
 */
function agentReadiness(
  agent: LifecycleDeps["agent"],
  door: SidecarClient,
): ((signal: AbortSignal) => Promise<boolean>) | undefined {
  if (!agent.ready && !agent.resumeAfterWake) return undefined;
  let resumed = false;
  return async (signal) => {
    if (!resumed && agent.resumeAfterWake) {
      resumed = true;
      // ClawRun's own call: not activity (the control route).
      await agent.resumeAfterWake(door.control(), signal).catch(() => undefined);
    }
    return agent.ready ? agent.ready(door, signal) : true;
  };
}

/**
 * An agent with a model (OpenClaw's and ZeroClaw's provider keys, a `command` agent's
 * `agent.model`) gets this boot's model credential in its daemon's environment, in the
 * variables the agent declares (its config points at the gateway) or, when it declares none,
 * as CLAWRUN_MODEL_URL / CLAWRUN_MODEL_KEY. The real key stays in ClawRun.
 */
function modelEnvFor(
  d: LifecycleDeps,
  sandboxId: string,
  bootId: string | null,
): Record<string, string> {
  if (agentModelOf(d.config.agent) === null) return {};
  // start.ts sets it with the sandbox id; without one no credential could ever be accepted.
  if (bootId === null)
    throw new Error(`sandbox ${sandboxId} has no boot id for its model credential`);
  const credential = modelCredential(d.masterSecret, { sandboxId, bootId });
  return d.agent.modelEnv?.(credential) ?? commandModelEnv(d.publicUrl, credential);
}

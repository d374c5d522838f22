import { sidecarClient } from "../door/sidecar-client";
import type { ManagedSandbox } from "../providers/types";
import { askToSleep } from "./ask-to-sleep";
import { type LifecycleDeps, policySettings } from "./deps";
import { answering } from "./plan/policy";
import type { ConsentDecision } from "./sleep-consent";

/**
 * Asks an agent with a suspend protocol whether it may be snapshotted now (docs/lifecycle.md,
 * "Sleep only when the agent agrees"); null for an agent without one.
 */
export async function agentConsent(
  d: LifecycleDeps,
  sandbox: ManagedSandbox,
): Promise<ConsentDecision | null> {
  const prepare = d.agent.prepareSleep?.bind(d.agent);
  if (!prepare) return null;
  // ClawRun's own question: through the control route, so asking is not the agent's activity.
  const door = sidecarClient(sandbox, d.masterSecret).control();
  const settings = policySettings(d);
  return askToSleep({
    prepare: (signal) => prepare(door, signal),
    clock: d.clock,
    // The last heartbeat says whether a message is being answered (bounded by maxTurnDuration).
    deliveryOpen: async () => {
      const hb = await d.store.heartbeats.get(sandbox.id).catch(() => null);
      return answering(
        { openDeliverySince: hb?.openDeliverySince ?? null, now: d.clock() },
        settings,
      );
    },
  });
}

/** Lifts a suspension the agent agreed to when the snapshot did not happen; never throws. */
export async function resumeAgent(
  d: LifecycleDeps,
  sandbox: ManagedSandbox,
  suspensionId?: string,
): Promise<void> {
  const resume = d.agent.resumeAfterWake?.bind(d.agent);
  if (!resume) return;
  try {
    await resume(
      sidecarClient(sandbox, d.masterSecret).control(),
      AbortSignal.timeout(10_000),
      suspensionId,
    );
  } catch (err) {
    d.logger.warn({ err: (err as Error).message }, "resume after a failed snapshot failed");
  }
}

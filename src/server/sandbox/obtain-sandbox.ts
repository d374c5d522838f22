import type { NetworkPolicy } from "../../config/schema";
import { SANDBOX_PORTS } from "../../protocol/constants";
import { INSTANCE_LABEL } from "../domain/sandbox-labels";
import { agentModelOf } from "../model-gateway/agent-model";
import { gatewayHostOf, withGatewayHost } from "../model-gateway/network-policy";
import {
  type ManagedSandbox,
  SandboxNotFoundError,
  SnapshotNotFoundError,
} from "../providers/types";
import { errorMessage, type LifecycleDeps, policySettings, recordEvent } from "./deps";
import type { HeldLock } from "./lifecycle-lock";
import { nativeTtlMs } from "./plan/policy";
import { SNAPSHOT_MISSING, type WakePlan } from "./plan/wake-plan";

export type Obtained =
  | {
      ok: true;
      sandbox: ManagedSandbox;
      /** The snapshot it was restored from (restore plans). */
      restoredFrom: string | null;
      resumed: boolean;
    }
  | {
      ok: false;
      error: string;
      /** The saved state itself is gone (not a passing provider fault). */
      stateGone: boolean;
      /** Set when it is gone because every snapshot tried no longer exists. */
      missingSnapshot?: string;
    };

/**
 * Carries out a wake plan with the provider: create empty, restore from the first snapshot
 * that works (each failure an event), or resume the agent's stopped sandbox. Never falls
 * back to an empty sandbox when saved state cannot be brought back.
 */
export async function obtainSandbox(
  d: LifecycleDeps,
  lock: HeldLock,
  plan: Exclude<WakePlan, { kind: "refuse" }>,
): Promise<Obtained> {
  const timeoutMs = nativeTtlMs(policySettings(d));
  if (plan.kind === "resume") {
    await lock.confirm();
    try {
      const sandbox = await requireResume(d)(plan.sandboxId, { timeoutMs });
      return { ok: true, sandbox, restoredFrom: null, resumed: true };
    } catch (err) {
      const gone = err instanceof SandboxNotFoundError;
      await recordEvent(d, {
        type: "sandbox.resume-failed",
        level: "error",
        sandboxId: plan.sandboxId,
        message: `resuming sandbox ${plan.sandboxId} failed: ${errorMessage(err)}`,
      });
      return {
        ok: false,
        stateGone: gone,
        error: gone
          ? `the agent's sandbox ${plan.sandboxId} (or the state it saved) no longer exists; "start fresh" begins with an empty agent on purpose`
          : `sandbox ${plan.sandboxId} could not be resumed: ${errorMessage(err)}; the agent's state is kept`,
      };
    }
  }
  const candidates = plan.kind === "restore" ? plan.candidates : [null];
  const errors: string[] = [];
  let missing = 0;
  for (const snapshotId of candidates) {
    await lock.confirm();
    try {
      const sandbox = await d.provider.create({
        snapshotId: snapshotId ?? undefined,
        timeoutMs,
        // Only the sidecar's door is exposed; the daemon is reached through it (docs/sidecar.md).
        ports: [SANDBOX_PORTS.sidecar],
        internalPorts: [d.agent.daemon().port],
        resources: d.config.sandbox.resources,
        networkPolicy: sandboxNetworkPolicy(d),
        labels: { [INSTANCE_LABEL]: d.config.instance.name },
      });
      if (errors.length > 0 && plan.kind === "restore")
        // The newer saves could not be brought back: the agent runs on an older one. Loud.
        await recordEvent(d, {
          type: "state.rolled-back",
          level: "error",
          sandboxId: sandbox.id,
          message: `the agent's newest save could not be restored (${errors.join("; ")}); it runs on the older save ${snapshotId}: what it did since then is not there`,
          details: { restoredFrom: snapshotId, skipped: candidates.slice(0, errors.length) },
        });
      return { ok: true, sandbox, restoredFrom: snapshotId, resumed: false };
    } catch (err) {
      if (err instanceof SnapshotNotFoundError) missing++;
      const what = snapshotId ? `restore of snapshot ${snapshotId}` : "create";
      errors.push(`${what}: ${errorMessage(err)}`);
      await recordEvent(d, {
        type: "sandbox.create-failed",
        level: "error",
        sandboxId: null,
        message: `${what} failed: ${errorMessage(err)}`,
        details: { snapshotId },
      });
    }
  }
  // Every snapshot gone (not unreadable, not a provider fault): retrying cannot help, and only
  // the operator may start an empty agent in its place.
  const newest = candidates[0];
  if (plan.kind === "restore" && newest && missing === candidates.length)
    return {
      ok: false,
      stateGone: true,
      missingSnapshot: newest,
      error: `${SNAPSHOT_MISSING}: the agent's snapshot ${newest} no longer exists (${errors.join("; ")}); "start fresh" begins with an empty agent on purpose (queued messages are kept for it)`,
    };
  return {
    ok: false,
    stateGone: false,
    error:
      plan.kind === "restore"
        ? `none of ${candidates.length} snapshot(s) could be restored (${errors.join("; ")}); the agent's state is kept — fix the provider or "start fresh" to discard it`
        : `sandbox could not be created: ${errors.join("; ")}`,
  };
}

function requireResume(d: LifecycleDeps) {
  const resume = d.provider.resume?.bind(d.provider);
  if (!resume)
    throw new Error(`the ${d.provider.name} provider declares resumable but has no resume()`);
  return resume;
}

/**
 * The configured network policy, with ClawRun's host allowed when the agent calls its model
 * through ClawRun's model gateway (docs/model-gateway.md, "Network policy").
 */
function sandboxNetworkPolicy(d: LifecycleDeps): NetworkPolicy {
  const usesGateway = agentModelOf(d.config.agent) !== null;
  return withGatewayHost(
    d.config.sandbox.networkPolicy,
    usesGateway ? gatewayHostOf(d.publicUrl) : null,
  );
}

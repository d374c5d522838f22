import type { InstanceState } from "../../domain/instance-state";
import type { ProviderCapabilities } from "../../providers/types";
import { mayAutoWake, type PolicySettings } from "./policy";
import { TRANSITIONAL } from "./status-machine";

export interface WakeRequest {
  reason: string;
  trigger: "message" | "cron" | "operator";
  /** Ignore saved state on purpose (operator "start fresh"). */
  fresh?: boolean;
  /** Restore this snapshot instead of the newest (operator "wake from this"). */
  snapshotId?: string;
}

/** Pure: the instance is running and the request asks for nothing else (the one way to say so). */
export function alreadyRunning(
  state: InstanceState,
  req: Pick<WakeRequest, "fresh" | "snapshotId">,
): boolean {
  return state.status === "running" && state.sandboxId !== null && !req.fresh && !req.snapshotId;
}

export type Admission =
  | { kind: "already-running"; sandboxId: string }
  | { kind: "not-now"; reason: string }
  | { kind: "proceed" };

/**
 * Pure: whether a wake request may go ahead. Messages and cron wake a resting instance (a
 * failed one after its cooldown, never one whose state was lost); the operator may always
 * try; a transition in progress is joined (the waiter repairs it if its owner died).
 */
export function admitWake(
  state: InstanceState,
  req: Pick<WakeRequest, "trigger" | "fresh" | "snapshotId">,
  now: number,
  s: Pick<PolicySettings, "failedRetryBaseMs" | "failedRetryMaxMs">,
): Admission {
  if (alreadyRunning(state, req))
    return { kind: "already-running", sandboxId: state.sandboxId as string };
  if (req.trigger === "operator" || TRANSITIONAL.has(state.status) || mayAutoWake(state, now, s))
    return { kind: "proceed" };
  return {
    kind: "not-now",
    reason: `instance is ${state.status}${state.error ? `: ${state.error}` : ""}`,
  };
}

/** How a start that found the agent's snapshot gone begins its error (status lines key on it). */
export const SNAPSHOT_MISSING = "snapshot missing";

export type WakePlan =
  /** Start an empty agent: the first start, or the operator's "start fresh". */
  | { kind: "fresh"; reason: string }
  /** Create a sandbox from a snapshot, trying these newest first. */
  | { kind: "restore"; candidates: string[] }
  /** Bring back the stopped sandbox that holds the agent's files (resumable providers). */
  | { kind: "resume"; sandboxId: string }
  | {
      kind: "refuse";
      reason: string;
      /** The agent's saved state itself is gone (its snapshot missing): nothing to retry. */
      missingSnapshot?: string;
    };

export interface WakeFacts {
  state: InstanceState;
  capabilities: Pick<ProviderCapabilities, "resumable" | "restoreAnySnapshot">;
  /** The provider's snapshots, newest first (not consulted when resuming). */
  snapshots: readonly { id: string }[];
  request: Pick<WakeRequest, "fresh" | "snapshotId">;
}

/**
 * Pure: how to bring the agent up (docs/lifecycle.md, "Wake"). Never silently starts an
 * empty agent over state that should exist: starting fresh over saved state is an explicit
 * operator choice, and lost state waits for it.
 */
export function planWake(f: WakeFacts): WakePlan {
  const { state, request } = f;
  if (request.fresh) return { kind: "fresh", reason: "operator asked to start fresh" };
  if (request.snapshotId) {
    if (!f.capabilities.restoreAnySnapshot) {
      return {
        kind: "refuse",
        reason:
          "this provider resumes the agent's own sandbox; it cannot wake from a chosen snapshot",
      };
    }
    return f.snapshots.some((s) => s.id === request.snapshotId)
      ? { kind: "restore", candidates: [request.snapshotId] }
      : { kind: "refuse", reason: `snapshot ${request.snapshotId} does not exist` };
  }
  if (f.capabilities.resumable && state.savedSandboxId !== null)
    return { kind: "resume", sandboxId: state.savedSandboxId };
  if (!f.capabilities.resumable && f.snapshots.length > 0)
    return { kind: "restore", candidates: f.snapshots.map((s) => s.id) };
  if (state.lost) {
    return {
      kind: "refuse",
      reason: state.lost.snapshotId
        ? `${SNAPSHOT_MISSING}: the agent's snapshot ${state.lost.snapshotId} no longer exists; "start fresh" begins with an empty agent on purpose`
        : `the agent's files were lost when sandbox ${state.lost.sandboxId} died before they could be saved, and no snapshot holds an earlier copy; "start fresh" begins with an empty agent on purpose`,
    };
  }
  if (state.snapshotId !== null) {
    return {
      kind: "refuse",
      reason: `${SNAPSHOT_MISSING}: the agent's snapshot ${state.snapshotId} no longer exists; "start fresh" begins with an empty agent on purpose (queued messages are kept for it)`,
      missingSnapshot: state.snapshotId,
    };
  }
  return { kind: "fresh", reason: "no saved state yet: first start" };
}

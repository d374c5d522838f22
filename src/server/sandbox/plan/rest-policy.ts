import type { InstanceState, InstanceStatus } from "../../domain/instance-state";

export interface DeathFacts {
  /** The state when the sandbox was found dead (or gone mid-operation). */
  state: InstanceState;
  /** The newest snapshot the provider holds (null: none). */
  newestSnapshotId: string | null;
  /**
   * Whether the agent changed files since the sandbox was created, from its last heartbeat
   * (null: no heartbeat arrived, so nobody knows).
   */
  changedSinceCreated: boolean | null;
  /** What happened, in words ("native TTL expired", "stopped while snapshotting"). */
  cause: string;
  now: number;
}

export interface RestPlan {
  status: Extract<InstanceStatus, "sleeping" | "failed" | "uninitialized">;
  lost: InstanceState["lost"];
  reason: string;
  /** A loud event when work was lost or rolled back. */
  event: { type: "state.lost" | "state.rolled-back"; message: string } | null;
}

/**
 * Pure: where an instance comes to rest when its sandbox died without ClawRun stopping it
 * (docs/lifecycle.md, "When state is lost"). Lost work is never turned into a silent fresh
 * start: with an older snapshot the agent falls back to it and says so loudly; without one it
 * goes to `failed` and waits for the operator's "start fresh".
 */
export function planRestAfterDeath(f: DeathFacts): RestPlan {
  const from = f.state.status;
  const sandboxId = f.state.sandboxId ?? "(unknown)";
  const snapshot = f.newestSnapshotId ?? f.state.snapshotId;
  const rest = snapshot !== null ? "sleeping" : "uninitialized";
  // The daemon never served (creating/starting) or the snapshot was already taken (stopping).
  const mayHaveWork = from === "running" || from === "snapshotting";
  if (!mayHaveWork || f.changedSinceCreated === false) {
    return {
      status: from === "stopping" ? "sleeping" : rest,
      lost: null,
      reason: `sandbox ${sandboxId} ${f.cause}; nothing unsaved was lost${snapshot ? `; asleep from snapshot ${snapshot}` : ""}`,
      event: null,
    };
  }
  const since = f.state.sandboxCreatedAt
    ? new Date(f.state.sandboxCreatedAt).toISOString()
    : "its start";
  if (snapshot !== null) {
    const message = `sandbox ${sandboxId} ${f.cause} before ClawRun saved the agent's changes since ${since}: they are lost, and the agent wakes from the last snapshot, ${snapshot}`;
    return {
      status: "sleeping",
      lost: null,
      reason: message,
      event: { type: "state.rolled-back", message },
    };
  }
  const message = `sandbox ${sandboxId} ${f.cause} before ClawRun saved the agent's files, and no snapshot holds an earlier copy: its state is lost. ClawRun will not start an empty agent by itself; "start fresh" does so on purpose`;
  return {
    status: "failed",
    lost: { at: f.now, sandboxId, snapshotId: null },
    reason: message,
    event: { type: "state.lost", message },
  };
}

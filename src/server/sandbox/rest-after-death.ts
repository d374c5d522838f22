import type { InstanceState, InstanceStatus, Versioned } from "../domain/instance-state";
import { type LifecycleDeps, recordEvent } from "./deps";
import { recordAwake } from "./sleep";
import { AT_REST, type StateCell } from "./state-cell";
import { registerAll } from "./wake-hooks";

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
    lost: { at: f.now, sandboxId },
    reason: message,
    event: { type: "state.lost", message },
  };
}

/** Carries out planRestAfterDeath: hooks, awake time, the transition and the loud event. */
export async function restAfterDeath(
  d: LifecycleDeps,
  cell: StateCell,
  cur: Versioned<InstanceState>,
  cause: string,
  level: "warn" | "error" = "warn",
): Promise<RestPlan> {
  const sandboxId = cur.value.sandboxId;
  const [snapshots, heartbeat, events] = await Promise.all([
    d.provider.listSnapshots(),
    sandboxId ? d.store.getHeartbeat(sandboxId) : Promise.resolve(null),
    d.store.listEvents(500),
  ]);
  // The last point the agent's files were saved: its creation (restored from a snapshot) or a
  // snapshot taken of this very sandbox since. Work is taken as unsaved unless the sidecar saw
  // no file change and no message reached the agent after that point.
  const ownSnapshot = snapshots.find((sn) => sn.sourceSandboxId === sandboxId)?.createdAt ?? 0;
  const savedAt = Math.max(cur.value.sandboxCreatedAt ?? 0, ownSnapshot);
  const delivered = events.some(
    (e) => e.sandboxId === sandboxId && e.type === "message.replied" && e.at > savedAt,
  );
  const filesChanged = heartbeat ? heartbeat.lastChangedAt > savedAt : null;
  const plan = planRestAfterDeath({
    state: cur.value,
    newestSnapshotId: snapshots[0]?.id ?? null,
    changedSinceCreated: delivered || filesChanged === null ? true : filesChanged,
    cause,
    now: d.clock(),
  });
  const hookErrors = await registerAll(d.hooks);
  if (sandboxId) await recordAwake(d, cur.value, sandboxId);
  await cell.transition(
    cur,
    plan.status,
    { ...AT_REST, lost: plan.lost, error: plan.status === "failed" ? plan.reason : null },
    {
      reason: plan.reason,
      level: plan.event ? "error" : level,
      details: { sandboxId, hookErrors },
    },
  );
  if (plan.event) {
    await recordEvent(d, {
      type: plan.event.type,
      level: "error",
      sandboxId,
      message: plan.event.message,
    });
  }
  return plan;
}

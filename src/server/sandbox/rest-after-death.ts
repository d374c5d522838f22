import type { InstanceState, Versioned } from "../domain/instance-state";
import { type LifecycleDeps, recordEvent } from "./deps";
import { recordAwake } from "./housekeeping";
import { planRestAfterDeath, type RestPlan } from "./plan/rest-policy";
import { AT_REST, type StateCell } from "./state-cell";
import { registerAll } from "./wake-hooks";

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
    sandboxId ? d.store.heartbeats.get(sandboxId) : Promise.resolve(null),
    d.store.events.list(500),
  ]);
  // The last point the agent's files were saved: its creation (restored from a snapshot) or a
  // snapshot taken of this very sandbox since. Work is taken as unsaved unless the sidecar saw
  // no file change and no message reached the agent after that point.
  const ownSnapshot = snapshots.find((sn) => sn.sourceSandboxId === sandboxId)?.createdAt ?? 0;
  const savedAt = Math.max(cur.value.sandboxCreatedAt ?? 0, ownSnapshot);
  const delivered = events.some(
    (e) => e.sandboxId === sandboxId && e.type === "message.delivered" && e.at > savedAt,
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

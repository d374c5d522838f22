import type { InstanceState, Versioned } from "../domain/instance-state";
import { type LifecycleDeps, recordEvent } from "./deps";
import { findSandbox } from "./find-sandbox";
import type { HeldLock } from "./lifecycle-lock";
import { sandboxAlive } from "./plan/tick-policy";
import { resumeAgent } from "./sleep-consent-io";
import type { StateCell } from "./state-cell";

/**
 * Issue 23, item 3: a suspension the agent granted for a snapshot that never came (ClawRun
 * died between `prepare` and the snapshot, or the snapshot was interrupted). The agent refuses
 * new work until its lease runs out (2 min for OpenClaw), so whoever next holds the lifecycle
 * lock and finds the instance running with the suspension still recorded ends it with the
 * recorded id. Under the lock no snapshot is in progress, so this cannot undo one.
 * `cur` is the state the caller read under the lock (no extra store read when none is held).
 * Returns the state after, `cur` itself when there was nothing to end.
 */
export async function resumeStaleSuspension(
  d: LifecycleDeps,
  cell: StateCell,
  lock: HeldLock,
  cur: Versioned<InstanceState>,
): Promise<Versioned<InstanceState>> {
  const held = cur.value.suspension;
  if (!held || cur.value.status !== "running" || !cur.value.sandboxId) return cur;
  await lock.confirm();
  const sandbox = await findSandbox(d, cur.value.sandboxId);
  if (sandbox && sandboxAlive(sandbox.status)) await resumeAgent(d, sandbox, held.id);
  // A gone sandbox holds no suspension; either way the record is done with.
  const after = await cell.patch(cur, { suspension: null });
  await recordEvent(d, {
    type: "agent.suspension-resumed",
    level: "warn",
    sandboxId: cur.value.sandboxId,
    message: `resumed the agent's suspension ${held.id}: granted ${Math.round((d.clock() - held.at) / 1000)} s ago for a snapshot that never came`,
    details: { suspensionId: held.id, grantedAt: held.at },
  });
  return after;
}

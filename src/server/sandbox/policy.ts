import type { HeartbeatBody } from "../../protocol/heartbeat";
import type { ExtendReason, InstanceState } from "../domain/instance-state";

/**
 * Pure lifecycle decisions (DESIGN invariant 5): state, input and `now` in → decision out.
 * No I/O here; the manager carries decisions out. Seed 000 is the specification.
 */

export interface PolicySettings {
  activeDurationMs: number;
  cronKeepAliveWindowMs: number;
  cronWakeLeadTimeMs: number;
  ttlBufferMs: number;
  extendByMs: number;
  failedWakeCooldownMs: number;
}

export interface HeartbeatFacts {
  hb: HeartbeatBody;
  /** When the next cron job is due (null: no jobs). */
  cronDueAt: number | null;
  now: number;
}

export type HeartbeatDecision =
  /** The heartbeat comes from a sandbox that is not the instance's current one: stop it. */
  | { action: "stop-stale"; reason: string }
  /** The supervisor gave up on the daemon: stop at once, no point extending. */
  | { action: "stop-failed"; reason: string }
  /** A reason applies and the native TTL runway is short: push it by `byMs`. */
  | { action: "extend"; reason: ExtendReason; byMs: number }
  /** A reason applies and the runway is long enough, or a transition is in progress. */
  | { action: "none"; reason: string }
  /** No reason applies: snapshot and stop. */
  | { action: "sleep"; reason: string };

/** The three extend reasons, in the seed's order; the first that applies wins. */
export function activeReason(
  facts: { sandboxCreatedAt: number; lastChangedAt: number; cronDueAt: number | null; now: number },
  s: Pick<PolicySettings, "activeDurationMs" | "cronKeepAliveWindowMs">,
): ExtendReason | null {
  const { now } = facts;
  if (now - facts.sandboxCreatedAt < s.activeDurationMs) return "grace";
  if (now - facts.lastChangedAt < s.activeDurationMs) return "file-activity";
  if (
    facts.cronDueAt !== null &&
    facts.cronDueAt >= now &&
    facts.cronDueAt - now <= s.cronKeepAliveWindowMs
  ) {
    return "cron";
  }
  return null;
}

export function decideHeartbeat(
  state: InstanceState | null,
  facts: HeartbeatFacts,
  s: PolicySettings,
): HeartbeatDecision {
  const { hb, now } = facts;
  if (!state || state.sandboxId !== hb.sandboxId) {
    return { action: "stop-stale", reason: "not the instance's current sandbox" };
  }
  if (state.status !== "running") {
    // starting: the sidecar's first tick races the health check; other states are mid-transition.
    return { action: "none", reason: `instance is ${state.status}` };
  }
  if (hb.daemonStatus === "failed") {
    return { action: "stop-failed", reason: `daemon failed after ${hb.daemonRestarts} restarts` };
  }
  const reason = activeReason(
    {
      sandboxCreatedAt: hb.sandboxCreatedAt,
      lastChangedAt: hb.lastChangedAt,
      cronDueAt: facts.cronDueAt,
      now,
    },
    s,
  );
  if (!reason)
    return {
      action: "sleep",
      reason: "idle: no file activity, grace period over, no cron job due",
    };
  const remaining = (state.ttlDeadline ?? 0) - now;
  if (remaining < s.ttlBufferMs) return { action: "extend", reason, byMs: s.extendByMs };
  return {
    action: "none",
    reason: `${reason}: native TTL has ${Math.round(remaining / 1000)} s left`,
  };
}

/**
 * Whether a message or cron may wake the instance now. A failed instance is retried only
 * after a cooldown so a broken snapshot or crash-looping daemon cannot spin sandboxes.
 */
export function mayAutoWake(
  state: InstanceState | null,
  now: number,
  s: Pick<PolicySettings, "failedWakeCooldownMs">,
): boolean {
  if (!state) return true;
  if (state.status === "failed") return now - state.since >= s.failedWakeCooldownMs;
  return state.status === "uninitialized" || state.status === "sleeping";
}

/** When the dashboard may expect the instance to sleep, if nothing changes. */
export function sleepForecast(
  facts: { sandboxCreatedAt: number; lastChangedAt: number; cronDueAt: number | null; now: number },
  s: Pick<PolicySettings, "activeDurationMs" | "cronKeepAliveWindowMs">,
): { reason: ExtendReason | null; activeUntil: number } {
  const reason = activeReason(facts, s);
  const ends = [
    facts.sandboxCreatedAt + s.activeDurationMs,
    facts.lastChangedAt + s.activeDurationMs,
  ];
  if (reason === "cron" && facts.cronDueAt !== null) ends.push(facts.cronDueAt);
  return { reason, activeUntil: Math.max(facts.now, ...ends) };
}

export type RestorePlan =
  | { kind: "fresh"; reason: string }
  | { kind: "restore"; candidates: string[] }
  | { kind: "refuse"; reason: string };

/**
 * Which snapshots to try, newest first. Never silently starts an empty agent over state
 * that should exist: starting fresh over snapshots is an explicit operator choice.
 */
export function planRestore(input: {
  /** Newest first. */
  snapshots: readonly { id: string }[];
  /** The snapshot the state says holds the agent's files (null: none was ever taken). */
  expectedSnapshotId: string | null;
  fresh: boolean;
  requested: string | null;
}): RestorePlan {
  if (input.fresh) return { kind: "fresh", reason: "operator asked to start fresh" };
  const ids = input.snapshots.map((s) => s.id);
  if (input.requested !== null) {
    return ids.includes(input.requested)
      ? { kind: "restore", candidates: [input.requested] }
      : { kind: "refuse", reason: `snapshot ${input.requested} does not exist` };
  }
  if (ids.length > 0) return { kind: "restore", candidates: ids };
  if (input.expectedSnapshotId !== null) {
    return {
      kind: "refuse",
      reason: `the agent's snapshot ${input.expectedSnapshotId} no longer exists; "start fresh" discards its state on purpose`,
    };
  }
  return { kind: "fresh", reason: "no snapshot yet: first start" };
}

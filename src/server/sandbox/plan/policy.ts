import type { HeartbeatBody } from "../../../protocol/heartbeat";
import type { ExtendReason, InstanceState } from "../../domain/instance-state";
import { attest } from "./attestation";

/**
 * Pure lifecycle decisions: state, input and `now` in → decision out. No I/O here; the
 * manager carries decisions out. docs/lifecycle.md states the rules and numbers.
 */

export interface PolicySettings {
  activeDurationMs: number;
  /** How long an open delivery (a turn being answered) counts as activity (issue 22, item 4). */
  maxTurnDurationMs: number;
  cronKeepAliveWindowMs: number;
  cronWakeLeadTimeMs: number;
  ttlBufferMs: number;
  extendByMs: number;
  failedRetryBaseMs: number;
  failedRetryMaxMs: number;
  heartbeatIntervalMs: number;
  ttlMultiplier: number;
  /** The provider's cap on a sandbox's whole life, extensions included (null: none). */
  maxLifetimeMs: number | null;
}

/**
 * The native TTL a new sandbox gets: activeDuration × the multiplier, but never less than a
 * floor that outlasts two heartbeats plus the extend buffer (so a heartbeat always gets the
 * chance to extend or to snapshot before the TTL fires, whatever activeDuration is), and
 * never more than the provider's cap.
 */
export function nativeTtlMs(
  s: Pick<
    PolicySettings,
    "activeDurationMs" | "ttlMultiplier" | "ttlBufferMs" | "heartbeatIntervalMs" | "maxLifetimeMs"
  >,
): number {
  const floor = s.ttlBufferMs + 2 * s.heartbeatIntervalMs;
  const ttl = Math.max(s.activeDurationMs * s.ttlMultiplier, floor);
  return s.maxLifetimeMs === null ? ttl : Math.min(ttl, s.maxLifetimeMs);
}

/**
 * When the runway is short: extend by the seed's amount (never past the provider's cap), or,
 * when the cap leaves no room, snapshot and stop now while there is still time to.
 */
function extendOrSleep(
  state: InstanceState,
  reason: ExtendReason,
  now: number,
  s: PolicySettings,
): HeartbeatDecision | null {
  const deadline = state.ttlDeadline ?? 0;
  const remaining = deadline - now;
  if (remaining >= s.ttlBufferMs) return null;
  const room =
    s.maxLifetimeMs === null || state.sandboxCreatedAt === null
      ? s.extendByMs
      : state.sandboxCreatedAt + s.maxLifetimeMs - Math.max(deadline, now);
  if (room <= 0) {
    return {
      action: "sleep",
      reason: `${reason}, but the provider's maximum sandbox life is near: snapshot now so nothing is lost`,
    };
  }
  return { action: "extend", reason, byMs: Math.min(s.extendByMs, room) };
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
  /**
   * No reason applies: snapshot and stop. `stuckDeliverySince`: a delivery has been open for
   * longer than maxTurnDuration and no longer keeps the agent awake (event `delivery.stuck`).
   */
  | { action: "sleep"; reason: string; stuckDeliverySince?: number };

/** What the activity reasons read (a heartbeat's fields, the schedule, the clock). */
export interface ActivityFacts {
  sandboxCreatedAt: number;
  lastChangedAt: number;
  /** Start of the oldest delivery still open through the door; null/absent: none. */
  openDeliverySince?: number | null;
  cronDueAt: number | null;
  now: number;
}

/** Pure: an open delivery younger than maxTurnDuration: the agent is answering a message. */
export function answering(
  facts: Pick<ActivityFacts, "openDeliverySince" | "now">,
  s: Pick<PolicySettings, "maxTurnDurationMs">,
): boolean {
  const since = facts.openDeliverySince;
  return since !== null && since !== undefined && facts.now - since < s.maxTurnDurationMs;
}

/** Pure: an open delivery older than maxTurnDuration (its start), else null. */
export function stuckDeliverySince(
  facts: Pick<ActivityFacts, "openDeliverySince" | "now">,
  s: Pick<PolicySettings, "maxTurnDurationMs">,
): number | null {
  const since = facts.openDeliverySince;
  if (since === null || since === undefined) return null;
  return answering(facts, s) ? null : since;
}

/**
 * The extend reasons, the first that applies wins: the seed's three (grace, file activity,
 * cron), after ours: a message being answered (an open delivery, up to maxTurnDuration) is
 * activity however long the turn takes, so no snapshot starts under it (issue 22, item 4).
 */
export function activeReason(
  facts: ActivityFacts,
  s: Pick<PolicySettings, "activeDurationMs" | "cronKeepAliveWindowMs" | "maxTurnDurationMs">,
): ExtendReason | null {
  const { now } = facts;
  if (answering(facts, s)) return "delivery";
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
  if (state.status === "starting") {
    // The sidecar's first heartbeat races the health check: apply it (extend a short runway),
    // but decide nothing else until the start has finished.
    return (
      extendOrSleep(state, "grace", now, s) ?? { action: "none", reason: "instance is starting" }
    );
  }
  if (state.status !== "running") {
    // Other states are mid-transition; the operation in progress decides.
    return { action: "none", reason: `instance is ${state.status}` };
  }
  if (hb.daemonStatus === "failed") {
    return { action: "stop-failed", reason: `daemon failed after ${hb.daemonRestarts} restarts` };
  }
  // Restore attestation: a running sandbox holding another save than expected (e.g. one a
  // repair marked running without the start's check) is stopped without a snapshot, so the
  // wrong state never becomes the newest save.
  const attested = attest(state.expectedGeneration, hb.generation);
  if (!attested.ok) {
    return { action: "stop-failed", reason: `restore attestation failed: ${attested.message}` };
  }
  const activity: ActivityFacts = {
    sandboxCreatedAt: hb.sandboxCreatedAt,
    lastChangedAt: hb.lastChangedAt,
    openDeliverySince: hb.openDeliverySince ?? null,
    cronDueAt: facts.cronDueAt,
    now,
  };
  const reason = activeReason(activity, s);
  if (!reason) {
    const stuck = stuckDeliverySince(activity, s);
    return stuck === null
      ? { action: "sleep", reason: "idle: no file activity, grace period over, no cron job due" }
      : {
          action: "sleep",
          reason: `idle, and a delivery open since ${Math.round((now - stuck) / 1000)} s is past maxTurnDuration`,
          stuckDeliverySince: stuck,
        };
  }
  const short = extendOrSleep(state, reason, now, s);
  if (short) return short;
  const remaining = (state.ttlDeadline ?? 0) - now;
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
  s: Pick<PolicySettings, "failedRetryBaseMs" | "failedRetryMaxMs">,
): boolean {
  if (!state) return true;
  // Lost state waits for the operator: only "start fresh" may replace it with an empty agent.
  if (state.lost) return false;
  if (state.status === "failed") return now >= nextRetryAt(state, s);
  return state.status === "uninitialized" || state.status === "sleeping";
}

/**
 * When messages or cron may next retry a failed instance: 5 s after the first failure,
 * doubling with each consecutive one, at most 5 minutes, so a passing fault costs seconds and
 * a broken snapshot or crash-looping daemon cannot spin sandboxes.
 */
export function nextRetryAt(
  state: Pick<InstanceState, "since" | "failedStarts">,
  s: Pick<PolicySettings, "failedRetryBaseMs" | "failedRetryMaxMs">,
): number {
  const n = Math.max(1, state.failedStarts);
  return state.since + Math.min(s.failedRetryBaseMs * 2 ** (n - 1), s.failedRetryMaxMs);
}

/** When the dashboard may expect the instance to sleep, if nothing changes. */
export function sleepForecast(
  facts: ActivityFacts,
  s: Pick<PolicySettings, "activeDurationMs" | "cronKeepAliveWindowMs" | "maxTurnDurationMs">,
): { reason: ExtendReason | null; activeUntil: number } {
  const reason = activeReason(facts, s);
  const ends = [
    facts.sandboxCreatedAt + s.activeDurationMs,
    facts.lastChangedAt + s.activeDurationMs,
  ];
  // While answering: at least activeDuration after now (the answer itself is activity).
  if (reason === "delivery") ends.push(facts.now + s.activeDurationMs);
  if (reason === "cron" && facts.cronDueAt !== null) ends.push(facts.cronDueAt);
  return { reason, activeUntil: Math.max(facts.now, ...ends) };
}

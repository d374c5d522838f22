import type { InstanceState } from "../../domain/instance-state";
import type { SandboxStatus } from "../../providers/types";
import { mayAutoWake, nextRetryAt, type PolicySettings } from "./policy";
import { HAS_SANDBOX, TRANSITIONAL } from "./status-machine";

/** What the periodic reconcile tick knows, gathered by the manager while holding the lifecycle lock. */
export interface TickFacts {
  state: InstanceState | null;
  /** Provider truth for state.sandboxId: null when it does not exist (or no id). */
  sandboxStatus: SandboxStatus | null;
  /**
   * Whether the running sandbox's sidecar answered its health check (null: not asked). A
   * sandbox is running only while its sidecar is alive.
   */
  sidecarAnswers: boolean | null;
  /** Running sandboxes labelled with this instance that are not its current one. */
  orphans: string[];
  /** Inbox messages waiting for delivery. */
  inboxPending: number;
  cronDueAt: number | null;
  now: number;
}

export type TickAction =
  /** A transitional status with the lock free: its operation died mid-way. */
  | { kind: "repair"; from: InstanceState["status"] }
  /** The sandbox vanished (native TTL fired, host restarted): come to rest. */
  | { kind: "mark-dead"; sandboxStatus: SandboxStatus | null }
  /** The sandbox is there but its agent is not, or its TTL is about to fire: save it and stop it. */
  | { kind: "sleep"; reason: string }
  | { kind: "stop-orphans"; ids: string[] }
  | { kind: "run-cron" }
  | { kind: "drain" }
  | { kind: "wake"; reason: "cron" | "inbox" };

const ALIVE: ReadonlySet<SandboxStatus> = new Set(["running", "pending", "snapshotting"]);

/** Pure: the sandbox statuses in which the provider still has the sandbox's files and processes. */
export function sandboxAlive(status: SandboxStatus | null): boolean {
  return status !== null && ALIVE.has(status);
}

/**
 * Pure: when the next tick has a known job (a failed instance's retry with messages waiting, a
 * cron job's wake or due time), so a tick loop can come back then instead of a whole interval
 * later; null when nothing is scheduled.
 */
export function nextTickAt(f: TickFacts, s: PolicySettings): number | null {
  const times: number[] = [];
  const status = f.state?.status ?? "uninitialized";
  if (f.state && status === "failed" && !f.state.lost && f.inboxPending > 0)
    times.push(nextRetryAt(f.state, s));
  if (f.cronDueAt !== null)
    times.push(status === "running" ? f.cronDueAt : f.cronDueAt - s.cronWakeLeadTimeMs);
  return times.length > 0 ? Math.max(f.now, Math.min(...times)) : null;
}

/** Pure: decides what the tick does, in order. */
export function planTick(f: TickFacts, s: PolicySettings): TickAction[] {
  const actions: TickAction[] = [];
  const status = f.state?.status ?? "uninitialized";
  const alive = sandboxAlive(f.sandboxStatus);

  if (f.state && TRANSITIONAL.has(status)) {
    actions.push({ kind: "repair", from: status });
  } else if (f.state && HAS_SANDBOX.has(status) && !alive) {
    actions.push({ kind: "mark-dead", sandboxStatus: f.sandboxStatus });
  } else if (f.state && status === "running" && f.sidecarAnswers === false) {
    actions.push({ kind: "sleep", reason: "the sidecar stopped answering (agent gone)" });
  } else if (
    f.state &&
    status === "running" &&
    f.state.ttlDeadline !== null &&
    f.state.ttlDeadline - f.now < s.ttlBufferMs / 2
  ) {
    // Heartbeats would have extended it by now: they are not arriving. Save the state while
    // the sandbox still holds it rather than let the native TTL delete it.
    actions.push({
      kind: "sleep",
      reason: "the native TTL is about to fire and no heartbeat extended it",
    });
  }
  if (f.orphans.length > 0) actions.push({ kind: "stop-orphans", ids: f.orphans });
  // A state change first; the reconcile pass plans again on the new state (and then wakes).
  if (actions.some((a) => a.kind === "repair" || a.kind === "mark-dead" || a.kind === "sleep"))
    return actions;

  if (status === "running") {
    if (f.cronDueAt !== null && f.cronDueAt <= f.now) actions.push({ kind: "run-cron" });
    if (f.inboxPending > 0) actions.push({ kind: "drain" });
    return actions;
  }
  if (mayAutoWake(f.state, f.now, s)) {
    if (f.cronDueAt !== null && f.cronDueAt - f.now <= s.cronWakeLeadTimeMs)
      actions.push({ kind: "wake", reason: "cron" });
    else if (f.inboxPending > 0) actions.push({ kind: "wake", reason: "inbox" });
  }
  return actions;
}

import type { InstanceState } from "../domain/instance-state";
import type { SandboxStatus } from "../providers/types";
import { mayAutoWake, type PolicySettings } from "./policy";
import { HAS_SANDBOX, TRANSITIONAL } from "./status-machine";

/** What the periodic reconcile tick knows, gathered by the manager while holding the lifecycle lock. */
export interface TickFacts {
  state: InstanceState | null;
  /** Provider truth for state.sandboxId: null when it does not exist (or no id). */
  sandboxStatus: SandboxStatus | null;
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
  /** The sandbox vanished (native TTL fired, host restarted): mark sleeping, re-register hooks. */
  | { kind: "mark-dead"; sandboxStatus: SandboxStatus | null }
  | { kind: "stop-orphans"; ids: string[] }
  | { kind: "run-cron" }
  | { kind: "drain" }
  | { kind: "wake"; reason: "cron" | "inbox" };

/** Pure: decides what the tick does, in order. */
export function planTick(f: TickFacts, s: PolicySettings): TickAction[] {
  const actions: TickAction[] = [];
  const status = f.state?.status ?? "uninitialized";
  const alive =
    f.sandboxStatus === "running" ||
    f.sandboxStatus === "pending" ||
    f.sandboxStatus === "snapshotting";

  if (f.state && TRANSITIONAL.has(status)) {
    actions.push({ kind: "repair", from: status });
  } else if (f.state && HAS_SANDBOX.has(status) && !alive) {
    actions.push({ kind: "mark-dead", sandboxStatus: f.sandboxStatus });
  }
  if (f.orphans.length > 0) actions.push({ kind: "stop-orphans", ids: f.orphans });
  if (actions.some((a) => a.kind === "repair" || a.kind === "mark-dead")) return actions;

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

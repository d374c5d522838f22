import type { InstanceState } from "../domain/instance-state";
import type { PlannedWake } from "../domain/wake-scheduler";

/**
 * Pure: when a scheduled wake should call /api/cron for this state. A resting agent is woken
 * `cronWakeLeadTime` before its next job (as the tick would), a running one is called at the
 * due time so the job's message is queued then; no job, no wake. The same times the local
 * tick loop uses (tick-policy's nextTickAt), so both deployments behave alike.
 */
export function scheduledWakeAt(state: InstanceState, cronWakeLeadTimeMs: number): number | null {
  if (state.cronDueAt === null) return null;
  return state.status === "running" ? state.cronDueAt : state.cronDueAt - cronWakeLeadTimeMs;
}

export interface WakeChange {
  /** A planned message to cancel first (its time is no longer wanted). */
  cancel: string | null;
  /** The time to publish a new wake for. */
  publish: number | null;
}

/**
 * Pure: what to change so that exactly `want` is planned, given what is planned now. A plan
 * whose time has passed was delivered already: nothing left to cancel.
 */
export function planWakeChange(
  want: number | null,
  planned: PlannedWake | null,
  now: number,
): WakeChange {
  if (planned && planned.at === want) return { cancel: null, publish: null };
  const pending = planned !== null && planned.at > now;
  return { cancel: pending ? planned.messageId : null, publish: want };
}

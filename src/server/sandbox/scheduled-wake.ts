import { scheduledWakeAt } from "../cron/wake-timing";
import type { InstanceState } from "../domain/instance-state";
import { errorMessage, type LifecycleDeps } from "./deps";

/**
 * The state-change hook that keeps the scheduled wake in step with the state: called after
 * every state write, it re-plans only when the wake time changes (a heartbeat's TTL extension
 * costs nothing extra). A failure is logged, never fails the lifecycle: the next tick's
 * `ensureScheduledWake` and the daily cron catch up.
 */
export function replanOnChange(
  d: Pick<LifecycleDeps, "wakeScheduler" | "config" | "logger">,
): ((prev: InstanceState, next: InstanceState) => Promise<void>) | undefined {
  const scheduler = d.wakeScheduler;
  if (!scheduler) return undefined;
  const lead = d.config.sandbox.cronWakeLeadTime * 1000;
  return async (prev, next) => {
    const want = scheduledWakeAt(next, lead);
    if (want === scheduledWakeAt(prev, lead)) return;
    await scheduler.ensure(want).catch((err: unknown) => {
      d.logger.warn({ err: errorMessage(err) }, "could not plan the scheduled wake");
    });
  };
}

/** Makes sure the planned wake matches the state (each tick; cheap: one store read when it does). */
export async function ensureScheduledWake(
  d: Pick<LifecycleDeps, "wakeScheduler" | "config">,
  state: InstanceState,
): Promise<void> {
  await d.wakeScheduler?.ensure(scheduledWakeAt(state, d.config.sandbox.cronWakeLeadTime * 1000));
}

import type { Logger } from "pino";
import type { LifecycleTimings } from "../../config/constants";
import type { TickReport } from "../sandbox/reconcile";

export interface TickLoop {
  stop(): void;
}

/**
 * Pure: when to tick next. A tick that found the lifecycle lock held (another operation, or
 * a holder that died — a restarted server's first tick) tries again within half a lease, so
 * a dead holder delays the repair and its wake by seconds, not a whole interval.
 */
export function nextTickDelayMs(
  report: TickReport | null,
  timings: LifecycleTimings,
  now: number,
): number {
  if (report && !report.ran)
    return Math.min(timings.tickIntervalMs, Math.max(250, timings.lockLeaseMs / 2));
  // A retry or a cron job due before the next interval: come back for it (not busy-looping).
  if (report?.nextAt != null)
    return Math.max(250, Math.min(timings.tickIntervalMs, report.nextAt - now));
  return timings.tickIntervalMs;
}

/** Runs the reconcile tick now and then again after each one, never overlapping. */
export function startTickLoop(
  manager: { tick(): Promise<TickReport> },
  timings: LifecycleTimings,
  logger: Logger,
): TickLoop {
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  const tick = async () => {
    let report: TickReport | null = null;
    try {
      report = await manager.tick();
      if (report.actions.length > 0)
        logger.info({ actions: report.actions, errors: report.errors }, "tick");
    } catch (err) {
      logger.warn({ err: (err as Error).message }, "tick failed; the next one retries");
    }
    if (stopped) return;
    timer = setTimeout(tick, nextTickDelayMs(report, timings, Date.now()));
    timer.unref();
  };
  void tick(); // reconcile at once after a restart (e.g. sandboxes that died meanwhile)
  return {
    stop: () => {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
  };
}

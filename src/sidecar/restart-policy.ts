/**
 * Pure restart decisions for the supervisor (docs/sidecar.md, "Daemon statuses"): restart a crashed daemon after
 * restartDelayMs, at most maxRestarts times; the counter resets after stableResetMs of
 * stable running; once maxRestarts restarts have been used up the daemon is `failed`.
 * Time is passed in so the table test can drive it.
 */

export interface RestartPolicyTimings {
  restartDelayMs: number;
  maxRestarts: number;
  stableResetMs: number;
}

export interface RestartHistory {
  /** Restarts used since the last reset. */
  restarts: number;
  /** Epoch ms when the current process was first seen listening; null if it never was. */
  runningSince: number | null;
}

export type ExitDecision =
  | { action: "restart"; delayMs: number; restarts: number }
  | { action: "fail"; restarts: number };

/** The counter after accounting for a stable run: 0 once running lasted stableResetMs. */
export function restartsAfterStableRun(
  history: RestartHistory,
  now: number,
  timings: RestartPolicyTimings,
): number {
  if (history.runningSince === null) return history.restarts;
  return now - history.runningSince >= timings.stableResetMs ? 0 : history.restarts;
}

/**
 * What to do when the daemon exited on its own (any exit code: a daemon that is not
 * running is not serving, so a clean exit is treated like a crash).
 */
export function decideOnExit(
  history: RestartHistory,
  now: number,
  timings: RestartPolicyTimings,
): ExitDecision {
  const used = restartsAfterStableRun(history, now, timings);
  if (used >= timings.maxRestarts) return { action: "fail", restarts: used };
  return { action: "restart", delayMs: timings.restartDelayMs, restarts: used + 1 };
}

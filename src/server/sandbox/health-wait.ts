import type { SidecarHealth } from "../../protocol/health";
import type { SidecarClient } from "../door/sidecar-client";

/** When each step of the wait was first seen, in ms from its start (null: never). */
export interface HealthPhases {
  /** The sidecar's health server first answered. */
  sidecarMs: number | null;
  /** The sidecar first reported the daemon running (its port open). */
  daemonMs: number | null;
}

export type HealthOutcome =
  | { ok: true; health: SidecarHealth; waitedMs: number; phases: HealthPhases }
  | {
      ok: false;
      reason: string;
      health: SidecarHealth | null;
      waitedMs: number;
      phases: HealthPhases;
    };

/** How long the health wait polls at its finest cadence before slowing down. */
export const FAST_POLL_WINDOW_MS = 2_000;

/**
 * How long the door may hold one health request while the daemon starts (`GET /health?wait=`):
 * the answer comes the moment the daemon runs, so the wait is not rounded up to a poll.
 */
export const HEALTH_HOLD_MS = 1_000;

export interface HealthWaitOptions {
  budgetMs: number;
  pollMs: number;
  onPoll?: () => Promise<void>;
  /**
   * The agent's own readiness (its ready endpoint), asked once the sidecar reports the daemon
   * running; healthy only when it says true. Unset: an open port is enough.
   */
  ready?: (signal: AbortSignal) => Promise<boolean>;
}

/**
 * docs/lifecycle.md, "Start and wake" step 5: confirm the daemon through the sidecar's signed
 * `GET /health` within the budget (15 attempts 1 s apart, or the agent's own start budget).
 * We poll more often inside the same budget to notice "healthy" sooner, and stop early when
 * the supervisor reports the daemon `failed`.
 */
export async function waitForHealth(
  door: Pick<SidecarClient, "health">,
  opts: HealthWaitOptions,
): Promise<HealthOutcome> {
  const started = Date.now();
  const phases: HealthPhases = { sidecarMs: null, daemonMs: null };
  const since = () => Date.now() - started;
  const askTimeout = (extraMs = 0) =>
    AbortSignal.timeout(Math.max(opts.pollMs * 4, 1000) + extraMs);
  let last: SidecarHealth | null = null;
  let lastError = "sidecar did not answer";
  while (since() < opts.budgetMs) {
    await opts.onPoll?.();
    let answer: SidecarHealth | null = null;
    // Held by the door while the daemon starts, never past the budget.
    const hold = Math.max(0, Math.min(HEALTH_HOLD_MS, opts.budgetMs - since()));
    const askedAt = since();
    try {
      answer = await door.health(askTimeout(hold), hold);
    } catch (err) {
      lastError = `sidecar unreachable: ${(err as Error).message}`;
    }
    try {
      if (answer) {
        last = answer;
        // The door answered this request, so it was up when it was asked (a held answer
        // comes back later).
        phases.sidecarMs ??= askedAt;
        if (last.ok) {
          phases.daemonMs ??= since();
          if (!opts.ready || (await opts.ready(askTimeout()))) {
            return { ok: true, health: last, waitedMs: since(), phases };
          }
          lastError = "daemon is listening but the agent is not ready yet";
        } else if (last.daemon.status === "failed") {
          return {
            ok: false,
            reason: `daemon failed after ${last.daemon.restarts} restarts`,
            health: last,
            waitedMs: since(),
            phases,
          };
        } else {
          lastError = `daemon is ${last.daemon.status}`;
        }
      }
    } catch (err) {
      lastError = `the agent's readiness check failed: ${(err as Error).message}`;
    }
    // A request the door held to its end found nothing new: ask again at once. Otherwise
    // fine-grained while a wake normally completes, then 5× coarser for long (first) starts.
    if (hold > 0 && since() - askedAt >= hold) continue;
    const every = since() < FAST_POLL_WINDOW_MS ? opts.pollMs : opts.pollMs * 5;
    await new Promise((r) => setTimeout(r, every));
  }
  return {
    ok: false,
    reason: `not healthy within ${Math.round(opts.budgetMs / 1000)} s (${lastError})`,
    health: last,
    waitedMs: since(),
    phases,
  };
}

import type { InstanceState } from "../../domain/instance-state";
import { HAS_SANDBOX } from "./status-machine";

/**
 * The quiet tick (docs/lifecycle.md, "The quiet tick"): an agent at rest whose state has not
 * changed since this server's last full tick found nothing to do needs no lock, no provider
 * list and no schedule read, only the one store read that shows nothing changed. That keeps
 * an idle fleet at one store command per agent per tick and no provider call.
 */

/** What this server saw the last time a full tick of the agent found nothing to do. */
export interface CleanTick {
  /** The state's version then (0: never written). */
  version: number;
  at: number;
}

export interface QuietFacts {
  state: InstanceState | null;
  version: number;
  inboxPending: number;
  outboxPending: number;
  lastClean: CleanTick | null;
  now: number;
}

export interface QuietSettings {
  cronWakeLeadTimeMs: number;
  /**
   * A full tick at least this often all the same: the provider is listed for orphans again
   * even if nothing in the store changed (e.g. a sandbox someone started by hand with the
   * instance's label).
   */
  fullTickEveryMs: number;
}

export const FULL_TICK_EVERY_MS = 60 * 60_000;

/**
 * Pure: whether this tick may end after the glance, and when the next one has a job (a cron
 * wake's lead time), or `null` when a full tick is needed.
 */
export function quietTick(f: QuietFacts, s: QuietSettings): { nextAt: number | null } | null {
  if (!f.lastClean || f.version !== f.lastClean.version) return null;
  if (f.now - f.lastClean.at >= s.fullTickEveryMs) return null;
  // A sandbox is meant to exist (or an operation is under way): the provider must be asked.
  if (f.state && (HAS_SANDBOX.has(f.state.status) || f.state.suspension)) return null;
  if (f.inboxPending > 0 || f.outboxPending > 0) return null;
  const cronWakeAt = f.state?.cronDueAt != null ? f.state.cronDueAt - s.cronWakeLeadTimeMs : null;
  if (cronWakeAt !== null && cronWakeAt <= f.now) return null;
  return { nextAt: cronWakeAt };
}

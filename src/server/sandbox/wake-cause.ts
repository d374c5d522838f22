import type { WakeRequest } from "./plan/wake-plan";

/** What a wake found under the lifecycle lock, just before it would start a sandbox. */
export interface WakeCauseFacts {
  /** The oldest message waiting in the inbox, or null when none is. */
  firstPending: { id: string; channel: string } | null;
  /** When the next cron job is due (null: none). */
  cronDueAt: number | null;
  now: number;
  cronWakeLeadTimeMs: number;
}

export type WakeCause = { wake: true; cause: string } | { wake: false; reason: string };

/**
 * Pure: whether a wake may start a sandbox, and what to name as its cause. Decided under the
 * lock from what is there now, not from what the caller saw earlier: a message wake that
 * waited (for the lock, for another server's delivery) may find its message delivered and
 * the agent asleep again, and nothing wakes a sleeping agent without a message, a cron job
 * or an operator (issue 22, item 17).
 */
export function wakeCause(
  req: Pick<WakeRequest, "trigger" | "reason">,
  f: WakeCauseFacts,
): WakeCause {
  if (req.trigger === "operator") return { wake: true, cause: req.reason };
  const message = f.firstPending
    ? `message ${f.firstPending.id} from ${f.firstPending.channel}`
    : null;
  if (req.trigger === "cron" && f.cronDueAt !== null && f.cronDueAt - f.now <= f.cronWakeLeadTimeMs)
    return { wake: true, cause: `cron job due at ${new Date(f.cronDueAt).toISOString()}` };
  if (message) return { wake: true, cause: message };
  return {
    wake: false,
    reason:
      req.trigger === "cron"
        ? "no cron job is due and no message is waiting"
        : "no message is waiting (delivered meanwhile)",
  };
}

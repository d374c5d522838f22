/**
 * A one-shot scheduler that calls /api/cron at a given time (docs/deploy.md, "Scheduled
 * wakes"). On Vercel's Hobby plan no cron may run more often than daily, so a sleeping agent
 * whose cron job is due gets woken by a message published for that moment (Upstash QStash).
 */
export interface WakeScheduler {
  /** Shown in /api/health and the setup checklist. */
  readonly description: string;
  /** Makes sure exactly the wake at `at` (ms) is planned; null cancels the planned one. */
  ensure(at: number | null): Promise<void>;
}

/** What is planned, kept in the store so every function instance sees the same plan. */
export interface PlannedWake {
  at: number;
  messageId: string;
}

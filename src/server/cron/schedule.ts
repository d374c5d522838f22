import { CronExpressionParser } from "cron-parser";

/** A job from clawrun.json `cron` or reported by the agent. */
export interface CronJob {
  name: string;
  schedule: string;
  message: string;
  conversation?: string;
  timezone?: string;
}

/** First occurrence of `job` strictly after `after` (epoch ms); null when the expression is unusable. */
export function nextOccurrence(job: CronJob, after: number): number | null {
  try {
    return CronExpressionParser.parse(job.schedule, {
      currentDate: new Date(after),
      tz: job.timezone,
    })
      .next()
      .getTime();
  } catch {
    return null;
  }
}

export interface ScheduleView {
  /** Jobs whose occurrence is due (≤ now), with that occurrence time. */
  due: { job: CronJob; dueAt: number }[];
  /** The earliest future occurrence over all jobs, once the due ones have run. */
  next: { job: CronJob; dueAt: number } | null;
  /** `lastRun` with baselines for new jobs and removed jobs dropped. */
  lastRun: Record<string, number>;
}

/**
 * Pure. `lastRun[name]` is when the job last fired, or when it was first seen: a new job
 * fires at its next occurrence, never for occurrences before ClawRun knew about it. An
 * occurrence missed while the server was down fires once, not once per missed occurrence.
 */
export function viewSchedule(
  jobs: readonly CronJob[],
  lastRun: Record<string, number>,
  now: number,
): ScheduleView {
  const base: Record<string, number> = {};
  const due: ScheduleView["due"] = [];
  let next: ScheduleView["next"] = null;
  for (const job of jobs) {
    base[job.name] = lastRun[job.name] ?? now;
    const occurrence = nextOccurrence(job, base[job.name] as number);
    if (occurrence === null) continue;
    const upcoming = occurrence <= now ? nextOccurrence(job, now) : occurrence;
    if (occurrence <= now) due.push({ job, dueAt: occurrence });
    if (upcoming !== null && (next === null || upcoming < next.dueAt))
      next = { job, dueAt: upcoming };
  }
  return { due, next, lastRun: base };
}

/**
 * Pure: how many times `job` fires in [from, to), counting at most `cap` (an every-minute job
 * fires 43,200 times a month; past the cap the caller treats the agent as always awake).
 * 0 when the expression is unusable.
 */
export function countOccurrences(
  job: Pick<CronJob, "schedule" | "timezone">,
  from: number,
  to: number,
  cap = 50_000,
): number {
  try {
    const it = CronExpressionParser.parse(job.schedule, {
      currentDate: new Date(from - 1),
      endDate: new Date(to - 1),
      tz: job.timezone,
    });
    let n = 0;
    while (n < cap && it.hasNext()) {
      it.next();
      n++;
    }
    return n;
  } catch {
    return 0;
  }
}

import type { AgentCronJob } from "../../protocol/agent-message";
import { type CronJob, type ScheduleView, viewSchedule } from "../cron/schedule";
import type { InstanceState, Versioned } from "../domain/instance-state";
import type { Schedule } from "../domain/schedule";
import type { Store } from "../store/types";
import type { StateCell } from "./state-cell";

/** Agent-reported jobs are namespaced so they can never shadow a clawrun.json job. */
export function allJobs(
  configJobs: readonly CronJob[],
  agentJobs: readonly AgentCronJob[],
): CronJob[] {
  return [...configJobs, ...agentJobs.map((j) => ({ ...j, name: `agent:${j.name}` }))];
}

export const EMPTY_SCHEDULE: Schedule = {
  nextDueAt: null,
  nextJob: null,
  lastRun: {},
  agentJobs: [],
};

/**
 * Reads the stored schedule, brings it up to date with the current jobs, and stores the
 * next due time both in the schedule and in the instance state (where the heartbeat's
 * cron extend reason reads it without another round trip).
 */
export async function refreshSchedule(
  store: Pick<Store, "schedule" | "inbox">,
  cell: StateCell,
  cur: Versioned<InstanceState>,
  configJobs: readonly CronJob[],
  now: number,
  reportedJobs: AgentCronJob[] | null,
): Promise<{
  view: ScheduleView;
  schedule: Schedule;
  cur: Versioned<InstanceState>;
  dueAt: number | null;
}> {
  const stored = (await store.schedule.get()) ?? EMPTY_SCHEDULE;
  const agentJobs = reportedJobs ?? stored.agentJobs;
  const view = viewSchedule(allJobs(configJobs, agentJobs), stored.lastRun, now);
  const schedule: Schedule = {
    nextDueAt: view.next?.dueAt ?? null,
    nextJob: view.next?.job.name ?? null,
    lastRun: view.lastRun,
    agentJobs,
  };
  if (JSON.stringify(schedule) !== JSON.stringify(stored)) await store.schedule.set(schedule);
  const dueAt =
    view.due.length > 0 ? Math.min(...view.due.map((d) => d.dueAt)) : schedule.nextDueAt;
  if (cur.value.cronDueAt !== schedule.nextDueAt)
    cur = await cell.patch(cur, { cronDueAt: schedule.nextDueAt });
  return { view, schedule, cur, dueAt };
}

/** Queues each due job's message (deduped per occurrence) and records it as run. */
export async function enqueueDueJobs(
  store: Pick<Store, "schedule" | "inbox">,
  view: ScheduleView,
  schedule: Schedule,
  now: number,
): Promise<string[]> {
  const queued: string[] = [];
  const lastRun = { ...schedule.lastRun };
  for (const { job, dueAt } of view.due) {
    await store.inbox.enqueue({
      id: `cron:${job.name}:${dueAt}`,
      channel: "cron",
      conversation: job.conversation ?? `cron:${job.name}`,
      text: job.message,
      receivedAt: now,
      meta: { job: job.name, dueAt },
    });
    lastRun[job.name] = dueAt;
    queued.push(job.name);
  }
  if (queued.length > 0) await store.schedule.set({ ...schedule, lastRun });
  return queued;
}

import { z } from "zod";
import { epochMs } from "./epoch";

/** The cron schedule's stored progress. */
export const scheduleSchema = z.object({
  /** When the next cron job is due (the tick wakes the agent cronWakeLeadTime before it). */
  nextDueAt: epochMs.nullable(),
  nextJob: z.string().nullable(),
  /** When each job last fired (or was first seen), so a job never fires twice for one due time. */
  lastRun: z.record(z.string(), epochMs),
  /** Jobs the agent reported while awake, remembered so they can wake it while asleep. */
  agentJobs: z
    .array(z.object({ name: z.string(), schedule: z.string(), message: z.string() }))
    .default([]),
});
export type Schedule = z.infer<typeof scheduleSchema>;

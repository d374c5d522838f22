import { z } from "zod";

/**
 * How ClawRun hands a message to an agent daemon over HTTP (the echo agent, and the
 * `command` agent with `delivery.format: "json"`): POST <path> with this JSON body.
 */
export const agentMessageSchema = z.strictObject({
  /** Unique message id; a daemon may use it to make delivery idempotent. */
  id: z.string().min(1).max(256),
  conversation: z.string().min(1).max(256),
  text: z.string().max(1024 * 1024),
});
export type AgentMessage = z.infer<typeof agentMessageSchema>;

/** The daemon answers 2xx with JSON `{ "reply": "..." }` (other fields are kept as details). */
export const agentReplySchema = z.looseObject({ reply: z.string() });

/** Cron jobs an agent reports (GET /cron on the echo agent). */
export const agentCronJobSchema = z.strictObject({
  name: z.string().min(1).max(100),
  schedule: z.string().min(1),
  message: z.string().min(1),
});
export const agentCronReportSchema = z.object({ jobs: z.array(agentCronJobSchema).max(100) });
export type AgentCronJob = z.infer<typeof agentCronJobSchema>;

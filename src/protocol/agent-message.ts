import { array, attempt, type Fields, object, type Parsed, string } from "./validate";

/**
 * How ClawRun hands a message to an agent daemon over HTTP (the echo agent, and the
 * `command` agent with `delivery.format: "json"`): POST <path> with this JSON body.
 * Hand-checked (./validate.ts), not zod: the echo daemon reads it, and a schema library in
 * its bundle was most of its start-up time, which every wake waits for (docs/sidecar.md,
 * "Start-up order").
 */
export interface AgentMessage {
  /** Unique message id; a daemon may use it to make delivery idempotent. */
  id: string;
  conversation: string;
  text: string;
}

export const AGENT_TEXT_MAX = 1024 * 1024;

export function parseAgentMessage(json: unknown): Parsed<AgentMessage> {
  return attempt(() => {
    const o = object(json, "", ["id", "conversation", "text"]);
    return {
      id: string(o, "id", "", { min: 1, max: 256 }),
      conversation: string(o, "conversation", "", { min: 1, max: 256 }),
      text: string(o, "text", "", { max: AGENT_TEXT_MAX }),
    };
  });
}

/** The daemon answers 2xx with JSON `{ "reply": "..." }` (other fields are kept as details). */
export function parseAgentReply(
  json: unknown,
): Parsed<{ reply: string; details: Record<string, unknown> }> {
  return attempt(() => {
    const o = object(json, "");
    const reply = string(o, "reply", "");
    const details = { ...o };
    delete details.reply;
    return { reply, details };
  });
}

/** Cron jobs an agent reports (GET /cron on the echo agent). */
export interface AgentCronJob {
  name: string;
  schedule: string;
  message: string;
}

function cronJob(value: unknown, path: string): AgentCronJob {
  const o: Fields = object(value, path, ["name", "schedule", "message"]);
  return {
    name: string(o, "name", path, { min: 1, max: 100 }),
    schedule: string(o, "schedule", path, { min: 1 }),
    message: string(o, "message", path, { min: 1 }),
  };
}

/** `{ jobs: [...] }`, at most 100 jobs; other top-level keys are ignored. */
export function parseAgentCronReport(json: unknown): Parsed<{ jobs: AgentCronJob[] }> {
  return attempt(() => ({ jobs: array(object(json, ""), "jobs", "", cronJob, { max: 100 }) }));
}

import { CronExpressionParser } from "cron-parser";
import { z } from "zod";
import { SANDBOX_PORTS } from "../protocol/constants";

/** Zod schema of clawrun.json. Defaults are the seeds' numbers; unknown keys are rejected. */

const positiveInt = (what = "a positive integer") =>
  z
    .number({ error: `expected ${what}` })
    .int({ error: `expected ${what}` })
    .positive({ error: `expected ${what}` });

const port = z
  .number({ error: "expected a port number (1-65535)" })
  .int({ error: "expected a port number (1-65535)" })
  .min(1, { error: "expected a port number (1-65535)" })
  .max(65535, { error: "expected a port number (1-65535)" });

const nonEmpty = (what: string) =>
  z.string({ error: `expected ${what}` }).min(1, { error: `expected ${what}` });

/** Env values for the daemon: a literal, or `{ "fromEnv": "NAME" }` so secrets stay out of this file. */
export const envValueSchema = z.union(
  [z.string(), z.strictObject({ fromEnv: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/) })],
  { error: 'expected a string or { "fromEnv": "VARIABLE_NAME" }' },
);
const envMap = z.record(
  z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, { error: "expected an environment variable name" }),
  envValueSchema,
);

const instanceSchema = z.strictObject({
  /** Prefix of every store key, so several deployments can share one Redis. */
  name: z
    .string({ error: "expected a name of letters, digits, '-' or '_'" })
    .regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,62}$/, {
      error: "expected 1-63 letters, digits, '-' or '_' (starting with a letter or digit)",
    })
    .default("clawrun"),
});

/** How a message is handed to a running daemon over HTTP. */
const deliverySchema = z.strictObject({
  path: z
    .string()
    .startsWith("/", { error: 'expected a path starting with "/"' })
    .default("/message"),
  /** `json`: POST {id, conversation, text}, reply read from JSON `reply`/`text` or the raw body. `text`: POST the text as text/plain. */
  format: z.enum(["json", "text"], { error: 'expected "json" or "text"' }).default("json"),
  timeoutMs: positiveInt().default(30_000),
});

const echoAgentSchema = z.strictObject({
  type: z.literal("echo"),
  port: port.default(SANDBOX_PORTS.daemon),
  env: envMap.default({}),
});

const commandAgentSchema = z.strictObject({
  type: z.literal("command"),
  command: nonEmpty("the daemon's executable (a non-empty string)"),
  /** `{PORT}` in an argument is replaced with the port the daemon must listen on. */
  args: z.array(z.string(), { error: "expected an array of strings" }).default([]),
  env: envMap.default({}),
  port: port.default(SANDBOX_PORTS.daemon),
  delivery: deliverySchema.default({ path: "/message", format: "json", timeoutMs: 30_000 }),
  /** Files copied from the project into the sandbox root before start: { "sandbox/path": "local/path" }. */
  files: z.record(z.string(), z.string()).default({}),
});

export const agentSchema = z.discriminatedUnion("type", [echoAgentSchema, commandAgentSchema], {
  error: 'expected "echo" or "command"',
});

export const networkPolicySchema = z.union(
  [
    z.literal("allow-all"),
    z.literal("deny-all"),
    z.strictObject({ allow: z.array(nonEmpty("a host name")) }),
  ],
  { error: 'expected "allow-all", "deny-all" or { "allow": ["host", ...] }' },
);

const toolSchema = z.strictObject({
  name: nonEmpty("a tool name"),
  /** Shell command that exits 0 when the tool is already installed. */
  check: nonEmpty("a shell command"),
  /** Shell commands run in order to install it (inside the sandbox, ~/.local/bin is on PATH). */
  install: z.array(nonEmpty("a shell command")).min(1, { error: "expected at least one command" }),
});

const sandboxSchema = z.strictObject({
  provider: z.enum(["local", "vercel"], { error: 'expected "local" or "vercel"' }).default("local"),
  /** Seconds of idleness (no file activity) before the sandbox is snapshotted and stopped. */
  activeDuration: positiveInt().default(300),
  /** Seconds: stay awake when a cron job is due within this window. */
  cronKeepAliveWindow: positiveInt().default(900),
  /** Seconds: wake a sleeping sandbox this long before a cron job is due. */
  cronWakeLeadTime: positiveInt().default(60),
  resources: z.strictObject({ vcpus: positiveInt().default(2) }).default({ vcpus: 2 }),
  networkPolicy: networkPolicySchema.default("allow-all"),
  tools: z.array(toolSchema).default([]),
});

const cronExpression = z.string({ error: "expected a cron expression" }).refine(
  (expr) => {
    try {
      CronExpressionParser.parse(expr);
      return true;
    } catch {
      return false;
    }
  },
  { error: 'expected a valid cron expression like "0 9 * * 1-5"' },
);

const cronJobSchema = z.strictObject({
  name: nonEmpty("a job name"),
  schedule: cronExpression,
  message: nonEmpty("the message to deliver"),
  /** Conversation the message is delivered in (defaults to "cron:<name>"). */
  conversation: z.string().optional(),
  timezone: z.string().optional(),
});

const genericChannelSchema = z.strictObject({
  /** Replies to queued messages are POSTed here, signed like incoming webhooks. */
  replyUrl: z.url({ error: "expected an http(s) URL" }).optional(),
});

const channelsSchema = z.strictObject({
  generic: genericChannelSchema.optional(),
});

export const clawrunConfigSchema = z.strictObject({
  $schema: z.string().optional(),
  instance: instanceSchema.default({ name: "clawrun" }),
  agent: agentSchema.default({ type: "echo", port: SANDBOX_PORTS.daemon, env: {} }),
  sandbox: sandboxSchema.default(() => sandboxSchema.parse({})),
  cron: z.array(cronJobSchema).default([]),
  channels: channelsSchema.default({ generic: {} }),
});

export type ClawrunConfig = z.output<typeof clawrunConfigSchema>;
export type AgentConfig = ClawrunConfig["agent"];
export type CommandAgentConfig = Extract<AgentConfig, { type: "command" }>;
export type NetworkPolicy = z.output<typeof networkPolicySchema>;
export type ToolSpec = z.output<typeof toolSchema>;
export type CronJobConfig = z.output<typeof cronJobSchema>;
export type EnvValue = z.output<typeof envValueSchema>;

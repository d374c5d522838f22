import { CronExpressionParser } from "cron-parser";
import { z } from "zod";
import { SANDBOX_PORTS } from "../protocol/constants";
import { AGENT_NAME_PATTERN, AGENT_NAME_RULE, AGENT_SECTIONS } from "./agents-config";
import { modelGatewaySchema } from "./model-gateway-schema";
import { secret } from "./secret-paths";

/** Zod schema of clawrun.json. Defaults are the seeds' numbers; unknown keys are rejected. */

export const positiveInt = (what = "a positive integer") =>
  z
    .number({ error: `expected ${what}` })
    .int({ error: `expected ${what}` })
    .positive({ error: `expected ${what}` });

export const portSchema = z
  .number({ error: "expected a port number (1-65535)" })
  .int({ error: "expected a port number (1-65535)" })
  .min(1, { error: "expected a port number (1-65535)" })
  .max(65535, { error: "expected a port number (1-65535)" });

export const nonEmpty = (what: string) =>
  z.string({ error: `expected ${what}` }).min(1, { error: `expected ${what}` });

/** Env values for the daemon: a literal, or `{ "fromEnv": "NAME" }` so secrets stay out of this file. */
export const envValueSchema = z.union(
  [z.string(), z.strictObject({ fromEnv: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/) })],
  { error: 'expected a string or { "fromEnv": "VARIABLE_NAME" }' },
);
export const envMapSchema = z.record(
  z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, { error: "expected an environment variable name" }),
  // A literal here may be a key: shown as set, never shown.
  secret(envValueSchema),
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

export const networkPolicySchema = z.union(
  [
    z.literal("allow-all"),
    z.literal("deny-all"),
    z.strictObject({ allow: z.array(nonEmpty("a host name")) }),
  ],
  { error: 'expected "allow-all", "deny-all" or { "allow": ["host", ...] }' },
);

export const toolSchema = z.strictObject({
  name: nonEmpty("a tool name"),
  /** Shell command that exits 0 when the tool is already installed. */
  check: nonEmpty("a shell command"),
  /** Shell commands run in order to install it (inside the sandbox, ~/.local/bin is on PATH). */
  install: z.array(nonEmpty("a shell command")).min(1, { error: "expected at least one command" }),
});

const sandboxBaseShape = {
  /** Seconds of idleness (no file activity) before the sandbox is snapshotted and stopped. */
  activeDuration: positiveInt().default(300),
  /**
   * Seconds one turn (a message being answered) may keep the agent awake: an open delivery is
   * activity until then; after it, the turn counts as stuck and rest may proceed.
   */
  maxTurnDuration: positiveInt().default(600),
  /** Seconds: stay awake when a cron job is due within this window. */
  cronKeepAliveWindow: positiveInt().default(900),
  /** Seconds: wake a sleeping sandbox this long before a cron job is due. */
  cronWakeLeadTime: positiveInt().default(60),
  resources: z.strictObject({ vcpus: positiveInt().default(2) }).default({ vcpus: 2 }),
  networkPolicy: networkPolicySchema.default("allow-all"),
  tools: z.array(toolSchema).default([]),
};

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

/** A part of clawrun.json contributed by a module (a provider, a channel or an agent). */
export interface ConfigPart {
  readonly name: string;
  readonly configSchema: z.ZodType;
}

/** The common shape of every agent section: its type, its daemon's port and environment. */
export interface AgentConfigBase {
  type: string;
  port: number;
  env: Record<string, EnvValue>;
}

/**
 * Builds the clawrun.json schema from the module lists (src/server/compose/config-schema.ts passes
 * them), so `sandbox.provider`, `sandbox.<provider>`, `agent.type` and `channels.<name>`
 * accept exactly what is built in. Defaults are the lifecycle's numbers; unknown keys are
 * rejected.
 */
export function buildConfigSchema(parts: {
  providers: readonly ConfigPart[];
  /** Each agent's schema is an object whose `type` is the literal agent name. */
  agents: readonly (ConfigPart & { readonly configSchema: z.ZodObject })[];
  channels: readonly ConfigPart[];
}) {
  const providerNames = parts.providers.map((p) => p.name);
  const quoted = (names: string[]) => {
    const q = names.map((n) => `"${n}"`);
    return q.length > 1 ? `${q.slice(0, -1).join(", ")} or ${q.at(-1)}` : (q[0] ?? "(none)");
  };
  const sandboxSchema = z.strictObject({
    ...sandboxBaseShape,
    provider: z
      .string({ error: `expected ${quoted(providerNames)}` })
      .refine((v) => providerNames.includes(v), { error: `expected ${quoted(providerNames)}` })
      .default("local"),
    ...Object.fromEntries(parts.providers.map((p) => [p.name, p.configSchema.optional()])),
  });
  const agentTypes = parts.agents.map((a) => a.name);
  const agentSchema = z.discriminatedUnion(
    "type",
    parts.agents.map((a) => a.configSchema) as [z.ZodObject, ...z.ZodObject[]],
    { error: `expected ${quoted(agentTypes)}` },
  );
  const channelsSchema = z.strictObject(
    Object.fromEntries(parts.channels.map((c) => [c.name, c.configSchema.optional()])),
  );
  return z.strictObject({
    $schema: z.string().optional(),
    instance: instanceSchema.default({ name: "clawrun" }),
    agent: agentSchema.default({ type: "echo", port: SANDBOX_PORTS.daemon, env: {} }),
    sandbox: sandboxSchema.default(() => sandboxSchema.parse({})),
    cron: z.array(cronJobSchema).default([]),
    channels: channelsSchema.default(() => channelsSchema.parse({ generic: {} })),
    /** Model budget and prices (docs/model-gateway.md). */
    modelGateway: modelGatewaySchema.default(() => modelGatewaySchema.parse({})),
    /**
     * Several agents (src/config/agents-config.ts): each entry is laid over the sections above
     * and then checked against this same schema, so only its shape is checked here.
     */
    agents: z
      .record(
        z
          .string()
          .regex(AGENT_NAME_PATTERN, { error: `expected an agent name of ${AGENT_NAME_RULE}` }),
        z.strictObject(Object.fromEntries(AGENT_SECTIONS.map((k) => [k, z.unknown().optional()])), {
          error: `expected an object with any of ${AGENT_SECTIONS.join(", ")}`,
        }),
      )
      .optional(),
  });
}

type BuiltConfig = z.output<ReturnType<typeof buildConfigSchema>>;

/** The fields every agent section has, whatever its type (agents/<type> adds its own). */
export const agentBaseShape = {
  port: portSchema.default(SANDBOX_PORTS.daemon),
  env: envMapSchema.default({}),
};

/** clawrun.json after parsing: module sections stay `unknown` here; each module parses its own. */
export type ClawrunConfig = Omit<BuiltConfig, "sandbox" | "agent" | "channels"> & {
  agent: AgentConfigBase;
  sandbox: Omit<BuiltConfig["sandbox"], "provider"> & {
    provider: string;
    [provider: string]: unknown;
  };
  channels: Record<string, unknown>;
};
export type NetworkPolicy = z.output<typeof networkPolicySchema>;
export type ToolSpec = z.output<typeof toolSchema>;
export type EnvValue = z.output<typeof envValueSchema>;

import { z } from "zod";
import { ConfigError } from "../../config/load-config";
import { nonEmpty } from "../../config/schema";

/**
 * The part of clawrun.json's `agent` section a user chooses for a model-backed agent (OpenClaw,
 * ZeroClaw): the model provider, the model, and where the key comes from. The key is always a `{ "fromEnv": "NAME" }`
 * reference, never a literal, so clawrun.json stays free of secrets.
 */
const apiKeyRef = z.strictObject(
  {
    fromEnv: z
      .string({ error: 'expected { "fromEnv": "VARIABLE_NAME" }' })
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, { error: "expected an environment variable name" }),
  },
  { error: 'expected { "fromEnv": "VARIABLE_NAME" } (a key is never written in clawrun.json)' },
);

const modelId = nonEmpty("a model id such as gpt-5.5 (without the provider prefix)");

/**
 * An OpenAI-compatible endpoint's base URL. The agents append `/chat/completions` themselves,
 * so the URL must stop at `/v1`: a bare host or a full `/v1/chat/completions` would only fail
 * later, inside the sandbox, as a 404 from the model server on the first message.
 */
const baseUrlSchema = z
  .string({ error: "expected an http(s) URL" })
  .refine((v) => URL.canParse(v) && /^https?:$/.test(new URL(v).protocol), {
    error: "expected an http(s) URL such as https://llm.example.com/v1",
  })
  // An unparsable URL is the check above's to report.
  .refine((v) => !URL.canParse(v) || /\/v1$/.test(new URL(v).pathname + new URL(v).search), {
    error: (issue) =>
      `expected the base URL up to and including /v1, such as https://llm.example.com/v1 (the agent adds /chat/completions), got ${JSON.stringify(issue.input)}`,
  });

export const modelChoiceSchema = z.discriminatedUnion(
  "provider",
  [
    z.strictObject({ provider: z.literal("openai"), model: modelId, apiKey: apiKeyRef }),
    z.strictObject({ provider: z.literal("anthropic"), model: modelId, apiKey: apiKeyRef }),
    z.strictObject({
      provider: z.literal("openai-compatible"),
      /** The endpoint's base URL, up to and including `/v1` (requests go to `<baseUrl>/chat/completions`). */
      baseUrl: baseUrlSchema,
      model: modelId,
      apiKey: apiKeyRef,
    }),
  ],
  { error: 'expected provider "openai", "anthropic" or "openai-compatible"' },
);

export type ModelChoice = z.output<typeof modelChoiceSchema>;

export const MODEL_PROVIDERS = ["openai", "anthropic", "openai-compatible"] as const;

/**
 * The same choice as flat keys of an agent section (`provider`, `model`, `apiKey`, `baseUrl`
 * beside `type`): spread into the agent's strict object, then refined with
 * `checkModelChoice` (an object schema cannot hold the discriminated union itself).
 */
export const modelChoiceShape = {
  provider: z.enum(MODEL_PROVIDERS, {
    error: 'expected provider "openai", "anthropic" or "openai-compatible"',
  }),
  model: modelId,
  apiKey: apiKeyRef,
  /** Only for "openai-compatible": the endpoint's base URL, up to and including `/v1`. */
  baseUrl: baseUrlSchema.optional(),
};

type FlatChoice = {
  provider: (typeof MODEL_PROVIDERS)[number];
  model: string;
  apiKey: { fromEnv: string };
  baseUrl?: string | undefined;
};

/** Refinement for `modelChoiceShape`: `baseUrl` belongs to "openai-compatible" and only there. */
export function checkModelChoice(value: FlatChoice, ctx: z.RefinementCtx): void {
  if (value.provider === "openai-compatible" && value.baseUrl === undefined) {
    ctx.addIssue({
      code: "custom",
      path: ["baseUrl"],
      message:
        'expected the endpoint\'s http(s) base URL up to /v1 (provider "openai-compatible" needs it), but it is missing',
    });
  }
  if (value.provider !== "openai-compatible" && value.baseUrl !== undefined) {
    ctx.addIssue({
      code: "custom",
      path: ["baseUrl"],
      message: `expected no baseUrl for provider "${value.provider}" (only "openai-compatible" takes one)`,
    });
  }
}

/** Pure: the flat keys of a checked agent section -> the model choice. */
export function toModelChoice(value: FlatChoice): ModelChoice {
  return modelChoiceSchema.parse({
    provider: value.provider,
    model: value.model,
    apiKey: value.apiKey,
    ...(value.baseUrl === undefined ? {} : { baseUrl: value.baseUrl }),
  });
}

/**
 * The model key behind `apiKey.fromEnv`, read when the agent is built (at server start, before
 * any sandbox exists): unset or empty is a ConfigError naming both keys.
 */
export function resolveModelKey(
  model: ModelChoice,
  passthrough: (name: string) => string | undefined,
): string {
  const name = model.apiKey.fromEnv;
  const value = passthrough(name);
  if (value === undefined || value === "") {
    throw new ConfigError([
      `clawrun.json: agent.apiKey: environment variable ${name} is not set (or is one of ClawRun's own secrets); set it to the ${model.provider} API key`,
    ]);
  }
  return value;
}

/**
 * Where a model-backed agent sends its model calls: ClawRun's model gateway, which holds the
 * real key. Without a public URL the sandbox has nowhere to call: a ConfigError.
 */
export function requireGatewayUrl(modelGatewayUrl: string | null): string {
  if (modelGatewayUrl === null) {
    throw new ConfigError([
      "CLAWRUN_PUBLIC_URL is not set: the agent reaches its model through ClawRun's model gateway at that URL",
    ]);
  }
  return modelGatewayUrl;
}

import { z } from "zod";
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

const httpUrl = z
  .string({ error: "expected an http(s) URL" })
  .refine((v) => URL.canParse(v) && /^https?:$/.test(new URL(v).protocol), {
    error: "expected an http(s) URL such as https://llm.example.com/v1",
  });

export const modelChoiceSchema = z.discriminatedUnion(
  "provider",
  [
    z.strictObject({ provider: z.literal("openai"), model: modelId, apiKey: apiKeyRef }),
    z.strictObject({ provider: z.literal("anthropic"), model: modelId, apiKey: apiKeyRef }),
    z.strictObject({
      provider: z.literal("openai-compatible"),
      /** The endpoint's base URL, up to and including `/v1` (requests go to `<baseUrl>/chat/completions`). */
      baseUrl: httpUrl,
      model: modelId,
      apiKey: apiKeyRef,
    }),
  ],
  { error: 'expected provider "openai", "anthropic" or "openai-compatible"' },
);

export type ModelChoice = z.output<typeof modelChoiceSchema>;

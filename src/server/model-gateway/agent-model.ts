/**
 * Pure: the model an agent section of clawrun.json names. OpenClaw and ZeroClaw spell it as
 * flat keys beside `type` (provider, model, apiKey, baseUrl); a `command` agent as
 * `agent.model: { provider, model, apiKey, baseUrl }`. Null: the agent uses no model.
 */
export interface AgentModel {
  provider: string;
  model: string;
  apiKeyEnv: string;
  baseUrl: string | null;
}

export function agentModelOf(agent: unknown): AgentModel | null {
  if (typeof agent !== "object" || agent === null) return null;
  const section = agent as Record<string, unknown>;
  const fields =
    typeof section.model === "object" && section.model !== null
      ? (section.model as Record<string, unknown>)
      : section;
  const { provider, model, apiKey, baseUrl } = fields;
  const keyName = (apiKey as { fromEnv?: unknown } | undefined)?.fromEnv;
  if (typeof provider !== "string" || typeof model !== "string" || typeof keyName !== "string") {
    return null;
  }
  return {
    provider,
    model,
    apiKeyEnv: keyName,
    baseUrl: typeof baseUrl === "string" ? baseUrl : null,
  };
}

/** The path the gateway's routes live under, below ClawRun's public URL. */
export const GATEWAY_PATH = "/api/model/v1";

/**
 * Pure: what a `command` agent's daemon gets to reach its model: the gateway's URL (up to
 * /v1, like an OpenAI base URL) and this sandbox's credential, never the real key.
 */
export function commandModelEnv(publicUrl: string, credential: string): Record<string, string> {
  return {
    CLAWRUN_MODEL_URL: `${publicUrl.replace(/\/$/, "")}${GATEWAY_PATH}`,
    CLAWRUN_MODEL_KEY: credential,
  };
}

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

/**
 * The gateway's root below ClawRun's public URL. OpenAI-shaped clients take `<root>/v1` as
 * their base URL and add `/chat/completions`; Anthropic clients take the root itself and add
 * `/v1/messages` (as they do to `https://api.anthropic.com`).
 */
export const GATEWAY_ROOT = "/api/model";
/** The path the gateway's routes live under, below ClawRun's public URL. */
export const GATEWAY_PATH = `${GATEWAY_ROOT}/v1`;

/** Pure: the gateway's root URL for a public URL (no trailing slash). */
export function gatewayRootUrl(publicUrl: string): string {
  return `${publicUrl.replace(/\/+$/, "")}${GATEWAY_ROOT}`;
}

/**
 * Pure: what a `command` agent's daemon gets to reach its model: the gateway's URL (up to
 * /v1, like an OpenAI base URL) and this sandbox's credential, never the real key.
 */
export function commandModelEnv(publicUrl: string, credential: string): Record<string, string> {
  return {
    CLAWRUN_MODEL_URL: `${gatewayRootUrl(publicUrl)}/v1`,
    CLAWRUN_MODEL_KEY: credential,
  };
}

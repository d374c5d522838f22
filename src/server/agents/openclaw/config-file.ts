import type { ModelChoice } from "../model-choice";

/**
 * OpenClaw's config file, written by ClawRun into the sandbox home (docs/agents/openclaw.md).
 * OpenClaw reads JSON5 from `$OPENCLAW_CONFIG_PATH`, by default `~/.openclaw/openclaw.json`
 * (openclaw package: docs/gateway/configuration.md); plain JSON is valid JSON5.
 */
export const OPENCLAW_STATE_DIR = ".openclaw";
export const OPENCLAW_CONFIG_PATH = `${OPENCLAW_STATE_DIR}/openclaw.json`;

/** Where the gateway's file log goes, relative to the sandbox root (housekeeping, not activity). */
export const OPENCLAW_LOG_DIR = `${OPENCLAW_STATE_DIR}/logs`;
/** The file log rotates at this size and keeps five archives (docs/logging.md). */
const LOG_FILE_BYTES = 2 * 1024 * 1024;

/**
 * Daemon env var carrying the sandbox's model credential for ClawRun's model gateway (never
 * the provider's key, which stays in ClawRun).
 */
export const MODEL_KEY_ENV = "CLAWRUN_MODEL_API_KEY";
/** OpenClaw's own variable for the gateway's shared token (docs/cli/gateway/running.md). */
export const GATEWAY_TOKEN_ENV = "OPENCLAW_GATEWAY_TOKEN";

/**
 * The provider id OpenClaw routes to, per ClawRun provider kind. Every call goes to ClawRun's
 * model gateway: OpenAI-shaped kinds as one OpenAI-compatible endpoint (the gateway serves
 * chat completions, not OpenAI's Responses API), Anthropic through its own adapter.
 */
export const PROVIDER_IDS = {
  openai: "custom",
  anthropic: "anthropic",
  "openai-compatible": "custom",
} as const;

/** A SecretRef to an environment variable (docs/gateway/configuration/environment-variables.md). */
function envRef(name: string) {
  return { source: "env", provider: "default", id: name } as const;
}

/**
 * `models.providers.<id>` for the chosen provider (docs/gateway/config-tools/custom-providers.md),
 * pointed at ClawRun's model gateway (`gatewayUrl`, its root) with the sandbox's credential as
 * the key. Every kind names its endpoint, wire adapter and key explicitly, so the gateway never
 * falls back to a key it finds elsewhere. OpenClaw's Anthropic adapter adds `/v1/messages` to
 * its base URL (as to `https://api.anthropic.com`); the OpenAI-compatible one adds
 * `/chat/completions` to a base URL that ends at `/v1`.
 */
function providerEntry(model: ModelChoice, gatewayUrl: string): Record<string, unknown> {
  const apiKey = envRef(MODEL_KEY_ENV);
  const root = gatewayUrl.replace(/\/+$/, "");
  if (model.provider === "anthropic") {
    return { baseUrl: root, api: "anthropic-messages", apiKey };
  }
  return {
    baseUrl: `${root}/v1`,
    api: "openai-completions",
    apiKey,
    models: [{ id: model.model, name: model.model }],
  };
}

/**
 * Pure: the bundled plugins the config needs: memory (the agent's memory files) and
 * Anthropic's adapter; the OpenAI-compatible adapter is built in.
 */
export function pluginAllowList(model: ModelChoice): string[] {
  return model.provider === "anthropic" ? ["memory-core", "anthropic"] : ["memory-core"];
}

export interface OpenClawConfigInput {
  model: ModelChoice;
  /** The port the gateway listens on inside the sandbox (`--port` wins over this, same value). */
  port: number;
  /** ClawRun's model gateway root, `<public URL>/api/model`, where every model call goes. */
  gatewayUrl: string;
}

/**
 * Pure: clawrun.json's OpenClaw choices -> the contents of OpenClaw's config file. Holds no
 * secret: the model credential and the gateway token are SecretRefs to the daemon's
 * environment, and the provider's real key is not in the sandbox at all.
 */
export function openclawConfig(input: OpenClawConfigInput): Record<string, unknown> {
  const providerId = PROVIDER_IDS[input.model.provider];
  return {
    gateway: {
      // The gateway refuses to start without mode "local" (docs/cli/gateway/running.md).
      mode: "local",
      port: input.port,
      bind: "loopback",
      auth: { mode: "token", token: envRef(GATEWAY_TOKEN_ENV) },
      // Off by default; ClawRun delivers through it (docs/gateway/openai-http-api.md).
      http: { endpoints: { chatCompletions: { enabled: true } } },
      // Nobody can reach a loopback-only browser UI in a sandbox; skips its asset cache.
      controlUi: { enabled: false },
    },
    // File logs inside the state dir rather than the shared /tmp/openclaw (docs/logging.md):
    // they stay with the sandbox, capped small because a snapshot carries them; the gateway
    // substitutes `${VAR}` in config strings (docs/gateway/configuration/environment-variables.md).
    // biome-ignore lint/suspicious/noTemplateCurlyInString: OpenClaw's own substitution syntax
    logging: { file: "${OPENCLAW_STATE_DIR}/logs/gateway.log", maxFileBytes: LOG_FILE_BYTES },
    // Start-up cuts (docs/agents/openclaw.md, "Gateway boot"); every key is in the pinned
    // package's schema (dist/schema-*.mjs) and passes `openclaw config validate`.
    // No hosted model-catalog fetch: no network at start (it fails closed under deny-all).
    models: {
      catalogRefresh: { enabled: false },
      providers: { [providerId]: providerEntry(input.model, input.gatewayUrl) },
    },
    // ClawRun pins the version: no update check at start.
    update: { checkOnStart: false },
    // Load only the plugins this config uses instead of discovering every bundled one.
    plugins: { allow: pluginAllowList(input.model) },
    // Nobody on a sandbox's network needs to discover the gateway.
    discovery: { mdns: { mode: "off" } },
    agents: {
      defaults: {
        model: { primary: `${providerId}/${input.model.model}` },
        // OpenClaw's own periodic agent turn (default 30m) spends model tokens on its own;
        // ClawRun's cron jobs are the scheduler here (docs/gateway/heartbeat.md).
        heartbeat: { every: "0m" },
      },
    },
  };
}

/** The file as provisioned into the sandbox (path relative to the sandbox home). */
export function openclawConfigFile(input: OpenClawConfigInput): { path: string; content: string } {
  return {
    path: OPENCLAW_CONFIG_PATH,
    content: `${JSON.stringify(openclawConfig(input), null, 2)}\n`,
  };
}

/** The gateway token the daemon's environment carries for the config's SecretRef. */
export function openclawTokenEnv(gatewayToken: string): Record<string, string> {
  return { [GATEWAY_TOKEN_ENV]: gatewayToken };
}

/** The model credential the daemon's environment carries for the config's SecretRef. */
export function openclawModelEnv(credential: string): Record<string, string> {
  return { [MODEL_KEY_ENV]: credential };
}

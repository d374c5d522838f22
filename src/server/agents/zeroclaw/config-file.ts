import { createHash } from "node:crypto";
import type { ModelChoice } from "../model-choice";

/**
 * ZeroClaw's config file, written by ClawRun into the sandbox (docs/agents/zeroclaw.md).
 * ZeroClaw reads TOML from `$ZEROCLAW_CONFIG_DIR/config.toml`, by default
 * `~/.zeroclaw/config.toml`; schema version 3 keeps providers, agents and profiles in named
 * tables. Nothing secret is written: every provider entry points at ClawRun's model gateway,
 * the sandbox's model credential reaches ZeroClaw through its schema-mirror environment
 * override (the provider's real key never enters the sandbox), and the gateway token is
 * written only as its SHA-256 hash.
 */
export const ZEROCLAW_CONFIG_DIR = ".zeroclaw";
export const ZEROCLAW_CONFIG_PATH = `${ZEROCLAW_CONFIG_DIR}/config.toml`;

/** The one alias ClawRun uses for its provider entry, agent and profiles (lowercase, no `__`). */
export const ZEROCLAW_ALIAS = "clawrun";

/** ZeroClaw's provider family slot per ClawRun provider kind (`custom` = any OpenAI-compatible URL). */
export const ZEROCLAW_FAMILIES = {
  openai: "openai",
  anthropic: "anthropic",
  "openai-compatible": "custom",
} as const;

/**
 * `ZEROCLAW_<dotted path with __>` sets `providers.models.<family>.<alias>.api_key` at start-up
 * (docs/book/src/reference/env-vars.md): it carries the sandbox's model credential.
 */
export function zeroclawKeyEnv(model: ModelChoice): string {
  return `ZEROCLAW_providers__models__${ZEROCLAW_FAMILIES[model.provider]}__${ZEROCLAW_ALIAS}__api_key`;
}

/** What `[gateway] paired_tokens` stores: the hex SHA-256 of a bearer token. */
export function pairedTokenHash(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

/** A TOML basic string: JSON's escapes are a subset TOML accepts for these values. */
function str(value: string): string {
  return JSON.stringify(value);
}

export interface ZeroClawConfigInput {
  model: ModelChoice;
  port: number;
  /** ClawRun's model gateway root (`<public URL>/api/model`), where every model call goes. */
  gatewayUrl: string;
  /** The per-sandbox bearer token ClawRun will send (only its hash is written). */
  gatewayToken: string;
  /** How long one webhook request may run; ZeroClaw's own default is 30 s. */
  requestTimeoutSecs: number;
}

/**
 * Pure: the `uri` of the provider entry: ClawRun's model gateway, in the form each family
 * appends its path to. ZeroClaw's Anthropic provider adds `/v1/messages` to its base URL,
 * the OpenAI and custom (OpenAI-compatible) ones add `/chat/completions` to a URL ending at
 * `/v1` (v0.8.3: crates/zeroclaw-providers/src/anthropic.rs, openai.rs; `uri` overrides the
 * family's endpoint, docs/book/src/providers/configuration.md).
 */
export function zeroclawModelUri(model: ModelChoice, gatewayUrl: string): string {
  const root = gatewayUrl.replace(/\/+$/, "");
  return model.provider === "anthropic" ? root : `${root}/v1`;
}

/** Pure: clawrun.json's ZeroClaw choices -> the contents of `config.toml`. */
export function zeroclawConfigToml(input: ZeroClawConfigInput): string {
  const family = ZEROCLAW_FAMILIES[input.model.provider];
  const provider = [
    `[providers.models.${family}.${ZEROCLAW_ALIAS}]`,
    `model = ${str(input.model.model)}`,
    `uri = ${str(zeroclawModelUri(input.model, input.gatewayUrl))}`,
  ];
  return [
    "# Written by ClawRun; rewritten at every start.",
    "schema_version = 3",
    "",
    ...provider,
    `# api_key: the sandbox's ClawRun credential, from ${zeroclawKeyEnv(input.model)} in the daemon environment.`,
    "",
    `[agents.${ZEROCLAW_ALIAS}]`,
    "enabled = true",
    `model_provider = ${str(`${family}.${ZEROCLAW_ALIAS}`)}`,
    `risk_profile = ${str(ZEROCLAW_ALIAS)}`,
    `runtime_profile = ${str(ZEROCLAW_ALIAS)}`,
    "",
    `[risk_profiles.${ZEROCLAW_ALIAS}]`,
    "",
    `[runtime_profiles.${ZEROCLAW_ALIAS}]`,
    "",
    "[gateway]",
    `host = "127.0.0.1"`,
    `port = ${input.port}`,
    "allow_public_bind = false",
    "require_pairing = true",
    `paired_tokens = [${str(pairedTokenHash(input.gatewayToken))}]`,
    `request_timeout_secs = ${input.requestTimeoutSecs}`,
    "",
  ].join("\n");
}

export function zeroclawConfigFile(input: ZeroClawConfigInput): { path: string; content: string } {
  return { path: ZEROCLAW_CONFIG_PATH, content: zeroclawConfigToml(input) };
}

/** The daemon variable carrying the sandbox's model credential as the provider entry's key. */
export function zeroclawModelEnv(model: ModelChoice, credential: string): Record<string, string> {
  return { [zeroclawKeyEnv(model)]: credential };
}

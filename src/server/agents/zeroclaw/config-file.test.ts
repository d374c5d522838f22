import { createHash } from "node:crypto";
import { parse } from "smol-toml";
import { describe, expect, it } from "vitest";
import type { ModelChoice } from "../model-choice";
import {
  pairedTokenHash,
  ZEROCLAW_CONFIG_PATH,
  zeroclawConfigFile,
  zeroclawConfigToml,
  zeroclawKeyEnv,
  zeroclawModelEnv,
} from "./config-file";

/** ClawRun's model gateway root as the agent is given it (`<public URL>/api/model`). */
const GATEWAY = "https://claw.example.com/api/model";
const base = {
  port: 3000,
  gatewayToken: "tok-secret-123",
  requestTimeoutSecs: 300,
  gatewayUrl: GATEWAY,
};

describe("zeroclawConfigToml", () => {
  it.each<[ModelChoice, string, Record<string, unknown>]>([
    [
      { provider: "openai", model: "gpt-5.5", apiKey: { fromEnv: "OPENAI_API_KEY" } },
      "openai",
      { model: "gpt-5.5", uri: `${GATEWAY}/v1` },
    ],
    [
      { provider: "anthropic", model: "claude-sonnet-4-6", apiKey: { fromEnv: "K" } },
      // ZeroClaw's Anthropic provider adds /v1/messages itself.
      "anthropic",
      { model: "claude-sonnet-4-6", uri: GATEWAY },
    ],
    [
      {
        provider: "openai-compatible",
        baseUrl: "http://127.0.0.1:4000/v1",
        model: 'odd "model"',
        apiKey: { fromEnv: "K" },
      },
      // The endpoint's own URL stays in ClawRun: the gateway forwards to it.
      "custom",
      { model: 'odd "model"', uri: `${GATEWAY}/v1` },
    ],
  ])("%j -> providers.models.%s.clawrun", (model, family, entry) => {
    const parsed = parse(zeroclawConfigToml({ ...base, model }));
    expect(parsed).toEqual({
      schema_version: 3,
      providers: { models: { [family]: { clawrun: entry } } },
      agents: {
        clawrun: {
          enabled: true,
          model_provider: `${family}.clawrun`,
          risk_profile: "clawrun",
          runtime_profile: "clawrun",
        },
      },
      risk_profiles: { clawrun: {} },
      runtime_profiles: { clawrun: {} },
      gateway: {
        host: "127.0.0.1",
        port: 3000,
        allow_public_bind: false,
        require_pairing: true,
        paired_tokens: [createHash("sha256").update("tok-secret-123").digest("hex")],
        request_timeout_secs: 300,
      },
    });
  });

  it("holds neither the key nor the token, only the token's hash", () => {
    const file = zeroclawConfigFile({
      ...base,
      model: { provider: "openai", model: "m", apiKey: { fromEnv: "MY_SECRET_VAR" } },
    });
    expect(file.path).toBe(ZEROCLAW_CONFIG_PATH);
    expect(file.content).not.toContain("tok-secret-123");
    expect(file.content).not.toContain("MY_SECRET_VAR");
    expect(file.content).toContain(pairedTokenHash("tok-secret-123"));
  });
});

describe("zeroclaw daemon environment", () => {
  it("hands the sandbox's model credential through its schema-mirror variable", () => {
    const model: ModelChoice = { provider: "anthropic", model: "m", apiKey: { fromEnv: "X" } };
    expect(zeroclawKeyEnv(model)).toBe("ZEROCLAW_providers__models__anthropic__clawrun__api_key");
    expect(zeroclawModelEnv(model, "crm_cred")).toEqual({
      ZEROCLAW_providers__models__anthropic__clawrun__api_key: "crm_cred",
    });
  });
});

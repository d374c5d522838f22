import { describe, expect, it } from "vitest";
import { modelChoiceSchema } from "../model-choice";
import {
  GATEWAY_TOKEN_ENV,
  MODEL_KEY_ENV,
  OPENCLAW_CONFIG_PATH,
  openclawConfig,
  openclawConfigFile,
  openclawSecretEnv,
} from "./config-file";

const keyRef = { source: "env", provider: "default", id: MODEL_KEY_ENV };

describe("openclawConfig", () => {
  it.each([
    [
      { provider: "openai", model: "gpt-5.5", apiKey: { fromEnv: "OPENAI_API_KEY" } },
      "openai/gpt-5.5",
      {
        openai: {
          baseUrl: "https://api.openai.com/v1",
          api: "openai-responses",
          apiKey: keyRef,
          agentRuntime: { id: "openclaw" },
        },
      },
    ],
    [
      { provider: "anthropic", model: "claude-sonnet-4-6", apiKey: { fromEnv: "ANTHROPIC_KEY" } },
      "anthropic/claude-sonnet-4-6",
      {
        anthropic: {
          baseUrl: "https://api.anthropic.com",
          api: "anthropic-messages",
          apiKey: keyRef,
        },
      },
    ],
    [
      {
        provider: "openai-compatible",
        baseUrl: "http://127.0.0.1:4000/v1",
        model: "llama-3.1-8b",
        apiKey: { fromEnv: "LLM_KEY" },
      },
      "custom/llama-3.1-8b",
      {
        custom: {
          baseUrl: "http://127.0.0.1:4000/v1",
          api: "openai-completions",
          apiKey: keyRef,
          models: [{ id: "llama-3.1-8b", name: "llama-3.1-8b" }],
        },
      },
    ],
  ])("%j routes to %s", (raw, primary, providers) => {
    const config = openclawConfig({ model: modelChoiceSchema.parse(raw), port: 3000 });
    expect(config.models).toEqual({ catalogRefresh: { enabled: false }, providers });
    expect((config.plugins as { allow: string[] }).allow).toContain("memory-core");
    expect(config.agents).toEqual({
      defaults: { model: { primary }, heartbeat: { every: "0m" } },
    });
  });

  it("binds the gateway to loopback on the agent port with a token from the environment", () => {
    const config = openclawConfig({
      model: { provider: "openai", model: "gpt-5.5", apiKey: { fromEnv: "K" } },
      port: 4321,
    });
    expect(config.gateway).toEqual({
      mode: "local",
      port: 4321,
      bind: "loopback",
      auth: { mode: "token", token: { source: "env", provider: "default", id: GATEWAY_TOKEN_ENV } },
      http: { endpoints: { chatCompletions: { enabled: true } } },
      controlUi: { enabled: false },
    });
  });

  it("starts without network calls or discovery it does not need", () => {
    const config = openclawConfig({
      model: { provider: "openai", model: "gpt-5.5", apiKey: { fromEnv: "K" } },
      port: 3000,
    });
    expect(config.update).toEqual({ checkOnStart: false });
    expect(config.discovery).toEqual({ mdns: { mode: "off" } });
    expect(config.plugins).toEqual({ allow: ["memory-core", "openai"] });
  });

  it("writes JSON at OpenClaw's config path, without any secret value", () => {
    const env = openclawSecretEnv({ modelApiKey: "sk-live-123", gatewayToken: "tok-456" });
    expect(env).toEqual({ [MODEL_KEY_ENV]: "sk-live-123", [GATEWAY_TOKEN_ENV]: "tok-456" });
    const file = openclawConfigFile({
      model: { provider: "anthropic", model: "claude", apiKey: { fromEnv: "SECRET_NAME" } },
      port: 3000,
    });
    expect(file.path).toBe(OPENCLAW_CONFIG_PATH);
    expect(file.path).toBe(".openclaw/openclaw.json");
    expect(JSON.parse(file.content)).toEqual(
      openclawConfig({
        model: { provider: "anthropic", model: "claude", apiKey: { fromEnv: "SECRET_NAME" } },
        port: 3000,
      }),
    );
    for (const secret of ["sk-live-123", "tok-456", "SECRET_NAME"]) {
      expect(file.content).not.toContain(secret);
    }
  });
});

import { describe, expect, it } from "vitest";
import {
  GATEWAY_TOKEN_ENV,
  MODEL_KEY_ENV,
  OPENCLAW_CONFIG_PATH,
  openclawConfig,
  openclawConfigFile,
  openclawSecretEnv,
} from "./config-file";
import { openclawModelSchema } from "./config-schema";

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
    const config = openclawConfig({ model: openclawModelSchema.parse(raw), port: 3000 });
    expect(config.models).toEqual({ providers });
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

describe("openclawModelSchema", () => {
  it.each([
    [
      { provider: "gemini", model: "x", apiKey: { fromEnv: "K" } },
      ["provider"],
      /expected provider "openai", "anthropic" or "openai-compatible"/,
    ],
    [{ provider: "openai", model: "gpt", apiKey: "sk-literal" }, ["apiKey"], /fromEnv/],
    [{ provider: "openai", model: "gpt" }, ["apiKey"], /fromEnv/],
    [{ provider: "openai", model: "", apiKey: { fromEnv: "K" } }, ["model"], /model id/],
    [
      { provider: "openai-compatible", model: "m", apiKey: { fromEnv: "K" } },
      ["baseUrl"],
      /http\(s\) URL/,
    ],
    [
      {
        provider: "openai-compatible",
        baseUrl: "ftp://x/v1",
        model: "m",
        apiKey: { fromEnv: "K" },
      },
      ["baseUrl"],
      /http\(s\) URL/,
    ],
    [
      { provider: "openai", model: "m", apiKey: { fromEnv: "1BAD" } },
      ["apiKey", "fromEnv"],
      /environment variable name/,
    ],
    [{ provider: "openai", model: "m", apiKey: { fromEnv: "K" }, extra: 1 }, [], /extra/],
  ])("rejects %j at %j", (raw, path, message) => {
    const result = openclawModelSchema.safeParse(raw);
    expect(result.success).toBe(false);
    const issue = result.error?.issues[0];
    expect(issue?.path).toEqual(path);
    expect(`${issue?.message} ${JSON.stringify(issue)}`).toMatch(message);
  });
});

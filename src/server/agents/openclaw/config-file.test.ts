import { describe, expect, it } from "vitest";
import { modelChoiceSchema } from "../model-choice";
import {
  GATEWAY_TOKEN_ENV,
  MODEL_KEY_ENV,
  OPENCLAW_CONFIG_PATH,
  openclawConfig,
  openclawConfigFile,
  openclawModelEnv,
  openclawTokenEnv,
} from "./config-file";

const keyRef = { source: "env", provider: "default", id: MODEL_KEY_ENV };
/** ClawRun's model gateway root as the agent is given it (`<public URL>/api/model`). */
const GATEWAY = "https://claw.example.com/api/model";

describe("openclawConfig", () => {
  it.each([
    [
      { provider: "openai", model: "gpt-5.5", apiKey: { fromEnv: "OPENAI_API_KEY" } },
      // OpenAI through the gateway's chat completions (it serves no Responses API).
      "custom/gpt-5.5",
      {
        custom: {
          baseUrl: `${GATEWAY}/v1`,
          api: "openai-completions",
          apiKey: keyRef,
          models: [{ id: "gpt-5.5", name: "gpt-5.5" }],
        },
      },
    ],
    [
      { provider: "anthropic", model: "claude-sonnet-4-6", apiKey: { fromEnv: "ANTHROPIC_KEY" } },
      "anthropic/claude-sonnet-4-6",
      {
        // The Anthropic adapter adds /v1/messages itself.
        anthropic: {
          baseUrl: GATEWAY,
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
        // The endpoint's own URL stays in ClawRun: the gateway forwards to it.
        custom: {
          baseUrl: `${GATEWAY}/v1`,
          api: "openai-completions",
          apiKey: keyRef,
          models: [{ id: "llama-3.1-8b", name: "llama-3.1-8b" }],
        },
      },
    ],
  ])("%j routes to %s", (raw, primary, providers) => {
    const config = openclawConfig({
      model: modelChoiceSchema.parse(raw),
      port: 3000,
      gatewayUrl: GATEWAY,
    });
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
      gatewayUrl: GATEWAY,
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
      gatewayUrl: GATEWAY,
    });
    expect(config.update).toEqual({ checkOnStart: false });
    expect(config.discovery).toEqual({ mdns: { mode: "off" } });
    expect(config.plugins).toEqual({ allow: ["memory-core"] });
  });

  it("writes JSON at OpenClaw's config path, without any secret value", () => {
    expect(openclawModelEnv("crm_cred")).toEqual({ [MODEL_KEY_ENV]: "crm_cred" });
    expect(openclawTokenEnv("tok-456")).toEqual({ [GATEWAY_TOKEN_ENV]: "tok-456" });
    const file = openclawConfigFile({
      model: { provider: "anthropic", model: "claude", apiKey: { fromEnv: "SECRET_NAME" } },
      port: 3000,
      gatewayUrl: GATEWAY,
    });
    expect(file.path).toBe(OPENCLAW_CONFIG_PATH);
    expect(file.path).toBe(".openclaw/openclaw.json");
    expect(JSON.parse(file.content)).toEqual(
      openclawConfig({
        model: { provider: "anthropic", model: "claude", apiKey: { fromEnv: "SECRET_NAME" } },
        port: 3000,
        gatewayUrl: GATEWAY,
      }),
    );
    for (const secret of ["crm_cred", "tok-456", "SECRET_NAME"]) {
      expect(file.content).not.toContain(secret);
    }
  });

  it("never names the model server a user configured: every kind calls the gateway", () => {
    for (const raw of [
      { provider: "openai", model: "m", apiKey: { fromEnv: "K" } },
      { provider: "anthropic", model: "m", apiKey: { fromEnv: "K" } },
      {
        provider: "openai-compatible",
        baseUrl: "http://10.1.2.3:4000/v1",
        model: "m",
        apiKey: { fromEnv: "K" },
      },
    ]) {
      const text = JSON.stringify(
        openclawConfig({ model: modelChoiceSchema.parse(raw), port: 3000, gatewayUrl: GATEWAY }),
      );
      expect(text).not.toMatch(/api\.openai\.com|api\.anthropic\.com|10\.1\.2\.3/);
      expect(text).toContain(GATEWAY);
    }
  });
});

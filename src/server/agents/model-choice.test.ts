import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ConfigError } from "../../config/load-config";
import {
  checkModelChoice,
  modelChoiceSchema,
  modelChoiceShape,
  resolveModelKey,
  toModelChoice,
} from "./model-choice";

describe("modelChoiceSchema", () => {
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
      { provider: "openai-compatible", baseUrl: "not a url", model: "m", apiKey: { fromEnv: "K" } },
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
    const result = modelChoiceSchema.safeParse(raw);
    expect(result.success).toBe(false);
    const issue = result.error?.issues[0];
    expect(issue?.path).toEqual(path);
    expect(`${issue?.message} ${JSON.stringify(issue)}`).toMatch(message);
  });
});

describe("the flat model keys of an agent section", () => {
  const flat = z.strictObject(modelChoiceShape).superRefine(checkModelChoice);
  const key = { fromEnv: "K" };

  it.each([
    [
      { provider: "openai", model: "m", apiKey: key },
      { provider: "openai", model: "m", apiKey: key },
    ],
    [
      { provider: "openai-compatible", model: "m", apiKey: key, baseUrl: "http://h:1/v1" },
      { provider: "openai-compatible", model: "m", apiKey: key, baseUrl: "http://h:1/v1" },
    ],
  ])("turns %j into the model choice", (raw, choice) => {
    expect(toModelChoice(flat.parse(raw))).toEqual(choice);
  });

  it.each([
    [
      { provider: "openai-compatible", model: "m", apiKey: key },
      /provider "openai-compatible" needs it/,
    ],
    [
      { provider: "anthropic", model: "m", apiKey: key, baseUrl: "http://h/v1" },
      /no baseUrl for provider "anthropic"/,
    ],
  ])("puts baseUrl with openai-compatible only: %j", (raw, message) => {
    const issue = flat.safeParse(raw).error?.issues[0];
    expect(issue?.path).toEqual(["baseUrl"]);
    expect(issue?.message).toMatch(message);
  });

  it.each([
    "http://127.0.0.1:11434",
    "https://llm.example.com/v1/",
    "https://llm.example.com/v1/chat/completions",
    "https://llm.example.com/v1?key=x",
  ])("refuses a baseUrl that does not end at /v1: %s", (baseUrl) => {
    const raw = { provider: "openai-compatible", model: "m", apiKey: key, baseUrl };
    const issues = flat.safeParse(raw).error?.issues ?? [];
    expect(issues).toHaveLength(1);
    expect(issues[0]?.path).toEqual(["baseUrl"]);
    expect(issues[0]?.message).toBe(
      `expected the base URL up to and including /v1, such as https://llm.example.com/v1 (the agent adds /chat/completions), got ${JSON.stringify(baseUrl)}`,
    );
  });

  it.each(["http://127.0.0.1:11434/v1", "https://proxy.example.com/openai/v1"])(
    "accepts a baseUrl that ends at /v1: %s",
    (baseUrl) => {
      const raw = { provider: "openai-compatible", model: "m", apiKey: key, baseUrl };
      expect(flat.safeParse(raw).success).toBe(true);
    },
  );

  it("reads the key when the agent is built; unset or empty is a ConfigError naming the variable", () => {
    const choice = toModelChoice(flat.parse({ provider: "anthropic", model: "m", apiKey: key }));
    expect(resolveModelKey(choice, (n) => (n === "K" ? "sk-1" : undefined))).toBe("sk-1");
    for (const value of [undefined, ""]) {
      const err = (() => {
        try {
          resolveModelKey(choice, () => value);
        } catch (e) {
          return e;
        }
      })();
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as ConfigError).problems).toEqual([
        "clawrun.json: agent.apiKey: environment variable K is not set (or is one of ClawRun's own secrets); set it to the anthropic API key",
      ]);
    }
  });
});

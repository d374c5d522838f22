import { describe, expect, it } from "vitest";
import { modelChoiceSchema } from "./model-choice";

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

import { describe, expect, it } from "vitest";
import { resolveAgentEnv } from "./resolve-env";

describe("resolveAgentEnv", () => {
  const host: Record<string, string> = { OPENAI_API_KEY: "sk-1", CLAWRUN_SECRET: "master" };
  const passthrough = (name: string) => host[name];

  it("passes literals and resolves fromEnv references", () => {
    expect(
      resolveAgentEnv({ MODE: "fast", KEY: { fromEnv: "OPENAI_API_KEY" } }, passthrough),
    ).toEqual({
      MODE: "fast",
      KEY: "sk-1",
    });
  });

  it("names every unset reference instead of passing an empty value", () => {
    expect(() =>
      resolveAgentEnv({ A: { fromEnv: "NOPE" }, B: { fromEnv: "ALSO_NOPE" } }, passthrough),
    ).toThrow(
      "clawrun.json: agent.env.A: environment variable NOPE is not set\nclawrun.json: agent.env.B: environment variable ALSO_NOPE is not set",
    );
  });

  it("refuses to hand ClawRun's own secrets to the agent", () => {
    expect(() => resolveAgentEnv({ S: { fromEnv: "CLAWRUN_SECRET" } }, passthrough)).toThrow(
      /ClawRun's own secret/,
    );
  });
});

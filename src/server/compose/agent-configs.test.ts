import { describe, expect, it } from "vitest";
import { problemsOf } from "../../../tests/support/problems-of";
import { ConfigError } from "../../config/load-config";
import { agentConfigs, parseConfigText } from "./config-schema";

const load = (value: unknown) => {
  const { config, raw } = parseConfigText(JSON.stringify(value));
  return agentConfigs({ config, raw, path: null });
};
const problems = (value: unknown) => problemsOf(() => load(value), ConfigError);

describe("each agent's config", () => {
  it("leaves a one-agent file exactly as it was: its name, its store keys, its sections", () => {
    const [only, ...rest] = load({ instance: { name: "home" }, sandbox: { activeDuration: 60 } });
    expect(rest).toEqual([]);
    expect(only?.name).toBe("home");
    expect(only?.loaded.config.instance.name).toBe("home");
    expect(only?.loaded.config.sandbox.activeDuration).toBe(60);
    expect("agents" in (only?.loaded.config ?? {})).toBe(false);
  });

  it("parses every agent as if it were alone, with its own store keys", () => {
    const agents = load({
      sandbox: { activeDuration: 60 },
      agents: { team: {}, personal: { sandbox: { activeDuration: 120 }, agent: { type: "echo" } } },
    });
    expect(agents.map((a) => [a.name, a.loaded.config.instance.name])).toEqual([
      ["team", "clawrun--team"],
      ["personal", "clawrun--personal"],
    ]);
    expect(agents.map((a) => a.loaded.config.sandbox.activeDuration)).toEqual([60, 120]);
  });

  it("names the agent and the key of every bad entry, and refuses the whole file", () => {
    expect(
      problems({
        agents: {
          good: {},
          slow: { sandbox: { activeDuration: -1 } },
          odd: { channels: { nope: {} } },
        },
      }),
    ).toEqual([
      "clawrun.json: agents.slow: sandbox.activeDuration: expected a positive integer, got -1",
      'clawrun.json: agents.odd: channels: unknown key "nope" (not part of the schema)',
    ]);
  });

  it("refuses a name that cannot be a URL segment and a section an agent cannot set", () => {
    const found = problems({ agents: { Team_1: {}, ok: { instance: { name: "x" } } } });
    expect(found.join("\n")).toMatch(/agents\.Team_1.*expected an agent name of 1-32 lowercase/);
    expect(found.join("\n")).toMatch(/agents\.ok.*unknown key "instance"/);
  });
});

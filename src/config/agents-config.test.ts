import { describe, expect, it } from "vitest";
import { agentEntries, agentEnvSuffix, mergePatch } from "./agents-config";

describe("several agents in clawrun.json", () => {
  it("reads a file without agents as one agent named instance.name, keeping its keys", () => {
    const raw = { sandbox: { activeDuration: 60 }, channels: { generic: {} } };
    expect(agentEntries(raw, "clawrun")).toEqual([
      { name: "clawrun", raw, storeName: "clawrun", isDefault: true, deploymentKeys: true },
    ]);
  });

  it("lays each entry over the shared sections as a merge patch, in file order", () => {
    const raw = {
      instance: { name: "prod" },
      sandbox: { activeDuration: 60, networkPolicy: "deny-all" },
      channels: { generic: {}, telegram: {} },
      agents: {
        team: { sandbox: { activeDuration: 120 } },
        personal: { channels: { telegram: null }, cron: [] },
      },
    };
    const [team, personal] = agentEntries(raw, "prod");
    expect(team?.raw).toEqual({
      instance: { name: "prod" },
      sandbox: { activeDuration: 120, networkPolicy: "deny-all" },
      channels: { generic: {}, telegram: {} },
    });
    expect(personal?.raw.channels).toEqual({ generic: {} });
    expect(personal?.raw.cron).toEqual([]);
    // Neither is named like the deployment: each has its own keys; the first is the default.
    expect([team?.storeName, personal?.storeName]).toEqual(["prod--team", "prod--personal"]);
    expect([team?.isDefault, personal?.isDefault]).toEqual([true, false]);
    expect([team?.deploymentKeys, personal?.deploymentKeys]).toEqual([false, false]);
  });

  it("keeps the deployment's keys for the agent named instance.name, which is the default", () => {
    const raw = { agents: { other: {}, clawrun: {} } };
    const entries = agentEntries(raw, "clawrun");
    expect(entries.map((e) => [e.name, e.storeName, e.isDefault, e.deploymentKeys])).toEqual([
      ["other", "clawrun--other", false, false],
      ["clawrun", "clawrun", true, true],
    ]);
  });

  it("replaces the default agent section whole when an entry names another type", () => {
    const raw = {
      agent: { type: "command", command: "node a.js", port: 4000 },
      agents: {
        a: { agent: { port: 4001 } },
        b: { agent: { type: "openclaw" } },
      },
    };
    const [a, b] = agentEntries(raw, "clawrun");
    expect(a?.raw.agent).toEqual({ type: "command", command: "node a.js", port: 4001 });
    expect(b?.raw.agent).toEqual({ type: "openclaw" });
  });

  it("merges like RFC 7396: objects key by key, null removes, arrays and scalars replace", () => {
    expect(mergePatch({ a: { b: 1, c: 2 }, d: [1] }, { a: { c: null, e: 3 }, d: [2] })).toEqual({
      a: { b: 1, e: 3 },
      d: [2],
    });
  });

  it("names an agent's own variables with an upper-case suffix", () => {
    expect(agentEnvSuffix("team-bot")).toBe("__TEAM_BOT");
  });
});

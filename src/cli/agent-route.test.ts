import { describe, expect, it } from "vitest";
import { agentApiPath, genericWebhookPath, pickAgent } from "./agent-route";
import { CliError, EXIT } from "./exit-codes";

describe("agentApiPath", () => {
  it.each([
    ["/api/sandbox", null, "/api/sandbox"],
    ["/api/sandbox/stop", null, "/api/sandbox/stop"],
    ["/api/sandbox", "team", "/api/agents/team/sandbox"],
    ["/api/sandbox/stop", "team", "/api/agents/team/sandbox/stop"],
    ["/api/sandbox/events?limit=20", "team", "/api/agents/team/sandbox/events?limit=20"],
    ["/api/sandbox?x=1", "team", "/api/agents/team/sandbox?x=1"],
    [
      "/api/sandbox/inbox/reply%3Aa/retry",
      "ops-2",
      "/api/agents/ops-2/sandbox/inbox/reply%3Aa/retry",
    ],
    // The default agent may be named like instance.name; an odd name stays one path segment.
    ["/api/sandbox/stop", "My_Bot", "/api/agents/My_Bot/sandbox/stop"],
    ["/api/sandbox/stop", "a/b", "/api/agents/a%2Fb/sandbox/stop"],
    // The deployment's own routes are nobody's.
    ["/api/agents", "team", "/api/agents"],
    ["/api/sandboxes", "team", "/api/sandboxes"],
  ])("%s for %s → %s", (path, agent, routed) => {
    expect(agentApiPath(path, agent)).toBe(routed);
  });
});

describe("genericWebhookPath", () => {
  it("is the plain webhook for the default agent and the named one otherwise", () => {
    expect(genericWebhookPath(null)).toBe("/api/webhooks/generic");
    expect(genericWebhookPath("team")).toBe("/api/webhooks/generic/team");
  });
});

describe("pickAgent", () => {
  it("takes --agent over CLAWRUN_AGENT, and neither means the default agent", () => {
    expect(pickAgent("team", "ops")).toEqual({ name: "team", source: "--agent" });
    expect(pickAgent(undefined, "ops")).toEqual({ name: "ops", source: "CLAWRUN_AGENT" });
    expect(pickAgent(undefined, " ops ")).toEqual({ name: "ops", source: "CLAWRUN_AGENT" });
    expect(pickAgent(undefined, undefined)).toBeNull();
    // An empty variable is unset, like the CLI's other variables.
    expect(pickAgent(undefined, "  ")).toBeNull();
  });

  it("passes any non-empty name through (the server says which agents there are)", () => {
    expect(pickAgent("Clawrun_Main", undefined)?.name).toBe("Clawrun_Main");
  });

  it.each([[""], ["  "]])("refuses an empty --agent %j as a usage error naming the flag", (v) => {
    let error: unknown;
    try {
      pickAgent(v, "ops");
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).exitCode).toBe(EXIT.usage);
    expect((error as CliError).message).toContain("--agent needs an agent's name");
  });
});

import { describe, expect, it } from "vitest";
import { agentOfRequest } from "./agent-of-request";

describe("the agent a request is for", () => {
  it("reads the operator API's and the sandbox's prefixes, a webhook's parameter, or none", () => {
    const at = (path: string, params?: unknown) => agentOfRequest(`http://h${path}`, params);
    expect(at("/api/agents/team/sandbox/stop")).toBe("team");
    expect(at("/api/agents/team")).toBe("team");
    expect(at("/agents/team/api/heartbeat")).toBe("team");
    expect(at("/api/webhooks/telegram/team", { channel: "telegram", agent: "team" })).toBe("team");
    expect(at("/api/sandbox/events?agent=team")).toBe("team");
    expect(at("/api/sandbox/stop")).toBeNull();
    expect(at("/api/webhooks/telegram", { channel: "telegram" })).toBeNull();
    // A page of that name is not an API call of an agent.
    expect(at("/agents/team")).toBeNull();
  });
});

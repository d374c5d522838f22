import { describe, expect, it } from "vitest";
import { agentOfRequest } from "@/src/server/http/agent-of-request";
import { agentApiPath, agentWebhookPath } from "./agent-path";

describe("agentApiPath", () => {
  it("keeps the plain route for the default agent", () => {
    expect(agentApiPath(null, "/api/sandbox/stream")).toBe("/api/sandbox/stream");
    expect(agentApiPath(null, "/api/sandbox")).toBe("/api/sandbox");
  });

  it("puts another agent's calls under /api/agents/NAME with the path after /api", () => {
    expect(agentApiPath("team", "/api/sandbox/stop")).toBe("/api/agents/team/sandbox/stop");
    expect(agentApiPath("team", "/api/sandbox/events?limit=200")).toBe(
      "/api/agents/team/sandbox/events?limit=200",
    );
  });

  it("gives paths the server reads back as that agent", () => {
    for (const name of ["team", "ops-2", "a b"]) {
      const url = `http://x${agentApiPath(name, "/api/sandbox/stream")}`;
      expect(agentOfRequest(url, undefined)).toBe(name);
    }
    expect(agentOfRequest(`http://x${agentApiPath(null, "/api/sandbox")}`, undefined)).toBeNull();
  });

  it("refuses a path outside the API rather than guessing", () => {
    expect(() => agentApiPath("team", "/login")).toThrow(/not an API path/);
  });
});

describe("agentWebhookPath", () => {
  it("names the agent in the last segment, the default agent not at all", () => {
    expect(agentWebhookPath(null, "generic")).toBe("/api/webhooks/generic");
    expect(agentWebhookPath("team", "generic")).toBe("/api/webhooks/generic/team");
  });
});

import { describe, expect, it } from "vitest";
import type { NetworkPolicy } from "../../config/schema";
import { gatewayHostOf, withGatewayHost } from "./network-policy";

describe("withGatewayHost", () => {
  it.each<[string, NetworkPolicy, string | null, NetworkPolicy]>([
    ["allow-all reaches the gateway already", "allow-all", "claw.example.com", "allow-all"],
    [
      "deny-all allows only the gateway",
      "deny-all",
      "claw.example.com",
      { allow: ["claw.example.com"] },
    ],
    [
      "an allow-list gets the gateway added",
      { allow: ["registry.npmjs.org", "*.github.com"] },
      "claw.example.com",
      { allow: ["registry.npmjs.org", "*.github.com", "claw.example.com"] },
    ],
    [
      "an allow-list naming it already is unchanged",
      { allow: ["Claw.Example.com"] },
      "claw.example.com",
      { allow: ["Claw.Example.com"] },
    ],
    ["an agent without a model: deny-all stays", "deny-all", null, "deny-all"],
    [
      "an agent without a model: the list stays",
      { allow: ["a.example"] },
      null,
      { allow: ["a.example"] },
    ],
  ])("%s", (_name, policy, host, expected) => {
    expect(withGatewayHost(policy, host)).toEqual(expected);
  });

  it("never changes the policy it was given", () => {
    const policy = { allow: ["a.example"] };
    withGatewayHost(policy, "claw.example.com");
    expect(policy).toEqual({ allow: ["a.example"] });
  });
});

describe("gatewayHostOf", () => {
  it.each([
    ["https://claw.example.com", "claw.example.com"],
    ["https://my-agent-abc.vercel.app/", "my-agent-abc.vercel.app"],
    ["http://127.0.0.1:3000", "127.0.0.1"],
    ["https://Agent.Example.com:8443/base", "agent.example.com"],
  ])("%s -> %s", (url, host) => {
    expect(gatewayHostOf(url)).toBe(host);
  });
});

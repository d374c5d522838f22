import { describe, expect, it } from "vitest";
import { UnsupportedNetworkPolicyError } from "../types";
import { toSdkNetworkPolicy } from "./network-policy";

describe("network policy in the SDK's terms", () => {
  it.each([
    ["allow-all", "allow-all"],
    ["deny-all", "deny-all"],
    [{ allow: ["api.openai.com", "*.npmjs.org"] }, { allow: ["api.openai.com", "*.npmjs.org"] }],
    [{ allow: [] }, { allow: [] }],
    [{ allow: ["*"] }, { allow: ["*"] }],
  ] as const)("%j → %j", (policy, sdk) => {
    expect(toSdkNetworkPolicy(policy as never)).toEqual(sdk);
  });

  it("does not share the allow list with the caller", () => {
    const policy = { allow: ["a.example"] };
    const mapped = toSdkNetworkPolicy(policy) as { allow: string[] };
    mapped.allow.push("b.example");
    expect(policy.allow).toEqual(["a.example"]);
  });

  it.each([
    ["https://example.com"],
    ["example.com/path"],
    ["exa mple.com"],
    ["*.*.com"],
    ["10.0.0.0/8"],
  ])("refuses %s, which is not a domain pattern the firewall takes", (host) => {
    expect(() => toSdkNetworkPolicy({ allow: ["ok.example", host] })).toThrow(
      UnsupportedNetworkPolicyError,
    );
  });
});

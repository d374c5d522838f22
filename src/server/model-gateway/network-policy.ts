import type { NetworkPolicy } from "../../config/schema";

/**
 * Pure: the sandbox's network policy with ClawRun's model gateway reachable. An agent that
 * uses the gateway must reach ClawRun's public URL; under "deny-all" or an allow-list its
 * host is added (the only host "deny-all" then allows). "allow-all" reaches it already, and
 * an agent without a model (`gatewayHost` null) gets the policy unchanged.
 */
export function withGatewayHost(policy: NetworkPolicy, gatewayHost: string | null): NetworkPolicy {
  if (gatewayHost === null || policy === "allow-all") return policy;
  const allow = policy === "deny-all" ? [] : policy.allow;
  const host = gatewayHost.toLowerCase();
  if (allow.some((h) => h.toLowerCase() === host)) return policy;
  return { allow: [...allow, host] };
}

/** Pure: the host a sandbox connects to for ClawRun's public URL (no port: policies name hosts). */
export function gatewayHostOf(publicUrl: string): string {
  return new URL(publicUrl).hostname;
}

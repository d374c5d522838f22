import type { NetworkPolicy as SdkNetworkPolicy } from "@vercel/sandbox";
import type { NetworkPolicy } from "../../../config/schema";
import { UnsupportedNetworkPolicyError } from "../types";

/**
 * Pure: ClawRun's policy in the SDK's terms. The SDK takes "allow-all", "deny-all" or
 * `{ allow: [domain, ...] }` (wildcards like "*.npmjs.org" allowed) and sends them to the API
 * as `{ mode }` or the allow object. An entry that is not a domain pattern is refused here
 * rather than by the API mid-wake.
 */
const DOMAIN_PATTERN =
  /^(\*|(\*\.)?([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)$/i;

export function toSdkNetworkPolicy(policy: NetworkPolicy): SdkNetworkPolicy {
  if (policy === "allow-all" || policy === "deny-all") return policy;
  const bad = policy.allow.filter((host) => !DOMAIN_PATTERN.test(host));
  if (bad.length > 0) throw new UnsupportedNetworkPolicyError("vercel", policy);
  return { allow: [...policy.allow] };
}

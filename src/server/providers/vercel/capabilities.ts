import type { ProviderCapabilities } from "../types";
import type { VercelConfig } from "./config";

/**
 * Pure: what the lifecycle may rely on in each mode (docs/vercel-sandbox.md). Both modes:
 * snapshot() stops the session (the SDK and Vercel's docs say so), the network policy is
 * enforced by Vercel's firewall, and a session lives at most the plan's cap.
 */
export function vercelCapabilities(
  config: Pick<VercelConfig, "mode" | "maxTimeoutMinutes">,
): ProviderCapabilities {
  const common = {
    snapshotStops: true,
    enforcesNetworkPolicy: true,
    maxLifetimeMs: config.maxTimeoutMinutes * 60_000,
    // Not yet: a template snapshot per layer version (issue 23); the agent installs itself.
    sharedLayers: false,
  };
  return config.mode === "persistent"
    ? { ...common, restoreAnySnapshot: false, resumable: true, ownsRetention: true }
    : { ...common, restoreAnySnapshot: true, resumable: false, ownsRetention: false };
}

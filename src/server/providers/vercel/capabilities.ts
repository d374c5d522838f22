import type { ProviderCapabilities } from "../types";
import type { VercelConfig } from "./config";

/**
 * Pure: what the lifecycle may rely on in each mode (docs/vercel-sandbox.md). Both modes:
 * snapshot() stops the session (the SDK and Vercel's docs say so), the network policy is
 * enforced by Vercel's firewall, and a session lives at most the plan's cap.
 */
export function vercelCapabilities(
  config: Pick<VercelConfig, "mode" | "maxTimeoutMinutes"> &
    Partial<Pick<VercelConfig, "maxStateArchiveMiB">>,
): ProviderCapabilities {
  const common = {
    snapshotStops: true,
    enforcesNetworkPolicy: true,
    maxLifetimeMs: config.maxTimeoutMinutes * 60_000,
    // Nothing can be mounted into a microVM from outside: layers are baked into templates.
    sharedLayers: false,
  };
  return config.mode === "persistent"
    ? {
        ...common,
        restoreAnySnapshot: false,
        resumable: true,
        ownsRetention: true,
        // The named sandbox keeps its files (install included) across stops: nothing to share.
        layerTemplates: null,
      }
    : {
        ...common,
        restoreAnySnapshot: true,
        resumable: false,
        ownsRetention: false,
        layerTemplates: { maxStateArchiveBytes: (config.maxStateArchiveMiB ?? 8) * 1024 * 1024 },
      };
}

import type { AppEnv } from "./env";
import type { LoadedConfig } from "./load-config";

/**
 * Pure: the defaults that follow where ClawRun runs (docs/deploy.md, "clawrun.json"). The same
 * committed clawrun.json serves a machine and a Vercel deployment: without `sandbox.provider`
 * in the file, the agent runs in Vercel Sandbox on Vercel and as local processes elsewhere.
 * (The store follows the environment the same way: src/config/store-env.ts.)
 */
/** The provider where clawrun.json names none: Vercel Sandbox on Vercel, local processes elsewhere. */
export function defaultProvider(env: Pick<AppEnv, "onVercel">): "vercel" | "local" {
  return env.onVercel ? "vercel" : "local";
}

export function withEnvironmentDefaults(
  loaded: LoadedConfig,
  env: Pick<AppEnv, "onVercel">,
): LoadedConfig {
  const raw = loaded.raw as { sandbox?: { provider?: unknown } } | null;
  if (!env.onVercel || raw?.sandbox?.provider !== undefined) return loaded;
  return {
    ...loaded,
    config: {
      ...loaded.config,
      sandbox: { ...loaded.config.sandbox, provider: defaultProvider(env) },
    },
  };
}

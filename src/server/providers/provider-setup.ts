import { type AppEnv, EnvError } from "../../config/env";
import { ConfigError } from "../../config/load-config";
import type { ClawrunConfig } from "../../config/schema";
import { findProvider } from "./index";
import type { ProviderModule } from "./types";

export interface ProviderSetup {
  module: ProviderModule;
  /** `sandbox.<name>` with its defaults filled in. */
  config: unknown;
  /** The credentials the provider declared in its envSchema, parsed. */
  credentials: unknown;
}

/**
 * The configured provider's module, section and credentials, or a ConfigError / EnvError
 * naming what is wrong. The one check shared by server start-up (buildProvider) and
 * `clawrun config check` (startup-check.ts), so both refuse the same credentials in the same
 * words (issue 22: config check said "ok" to a partial VERCEL_* triple the server refused).
 */
export function resolveProviderSetup(cfg: ClawrunConfig, env: AppEnv): ProviderSetup {
  const name = cfg.sandbox.provider;
  const module = findProvider(name);
  if (!module)
    throw new ConfigError([`clawrun.json: sandbox.provider: unknown provider "${name}"`]);
  const parsed = module.configSchema.safeParse(cfg.sandbox[name] ?? {});
  // The assembled schema already validated the section; this only fills its defaults.
  if (!parsed.success) throw new ConfigError([`clawrun.json: sandbox.${name}: invalid section`]);
  const credentials = env.moduleEnv(module.envSchema);
  if (!credentials.ok)
    throw new EnvError(credentials.problems.map((p) => `${p} (the ${name} provider needs it)`));
  return { module, config: parsed.data, credentials: credentials.value };
}

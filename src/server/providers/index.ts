import { localProvider } from "./local";
import type { ProviderModule } from "./types";
import { vercelProvider } from "./vercel";

/**
 * Every sandbox provider ClawRun ships, one line each. `sandbox.provider` in clawrun.json
 * accepts exactly these names; adding a provider is a folder beside this file and a line here.
 */
export const PROVIDERS: readonly ProviderModule[] = [localProvider, vercelProvider];

export function findProvider(name: string): ProviderModule | undefined {
  return PROVIDERS.find((p) => p.name === name);
}

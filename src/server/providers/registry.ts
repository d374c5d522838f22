import type { Logger } from "pino";
import type { ClawrunConfig } from "../../config/schema";
import type { SandboxProvider } from "./types";

/** What a provider factory receives from the composition root. */
export interface ProviderContext {
  config: ClawrunConfig;
  /** ClawRun's state directory (the local provider keeps sandboxes and snapshots under it). */
  stateDir: string;
  logger: Logger;
  /** PATH/LANG/TZ that processes a provider runs on this machine may inherit. */
  hostEnv: { PATH: string; LANG?: string; TZ?: string };
}

export type ProviderFactory = (ctx: ProviderContext) => SandboxProvider;

const factories = new Map<string, ProviderFactory>();

/** Seed 003: `registerProvider("custom", () => new CustomProvider())`. Re-registering replaces. */
export function registerProvider(name: string, factory: ProviderFactory): void {
  factories.set(name, factory);
}

export function getProvider(name: string, ctx: ProviderContext): SandboxProvider {
  const factory = factories.get(name);
  if (!factory) {
    const known = [...factories.keys()].sort();
    throw new Error(
      `unknown sandbox provider "${name}"; registered providers: ${known.length ? known.join(", ") : "(none)"}`,
    );
  }
  return factory(ctx);
}

export function registeredProviders(): string[] {
  return [...factories.keys()].sort();
}

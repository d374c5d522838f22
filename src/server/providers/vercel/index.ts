import type { ProviderModule } from "../types";
import { vercelCapabilities } from "./capabilities";
import { type VercelConfig, type VercelEnv, vercelConfigSchema, vercelEnvSchema } from "./config";
import { vercelSandboxCost } from "./cost";
import { VercelProvider } from "./vercel-provider";

/** Vercel Sandbox microVMs through @vercel/sandbox (docs/vercel-sandbox.md). */
export const vercelProvider: ProviderModule<VercelConfig, VercelEnv> = {
  name: "vercel",
  description: "Vercel Sandbox microVMs (@vercel/sandbox); snapshot or persistent mode",
  configSchema: vercelConfigSchema,
  envSchema: vercelEnvSchema,
  capabilities: vercelCapabilities,
  create: (ctx) =>
    new VercelProvider({
      config: ctx.config,
      env: ctx.env,
      instance: ctx.instance,
      logger: ctx.logger,
    }),
  cost: vercelSandboxCost,
};

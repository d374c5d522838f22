import { z } from "zod";
import type { ProviderModule } from "../types";
import { LOCAL_CAPABILITIES, LocalProvider } from "./local-provider";

const localConfigSchema = z.strictObject({
  /** Stopped sandboxes whose metadata and logs stay on disk (the newest); older ones are removed. */
  keepStopped: z
    .number({ error: "expected a positive integer" })
    .int({ error: "expected a positive integer" })
    .positive({ error: "expected a positive integer" })
    .default(20),
});

/** Sandboxes as directories and process groups on this machine (docs/local-provider.md). */
export const localProvider: ProviderModule<z.output<typeof localConfigSchema>, object> = {
  name: "local",
  description: "processes on this machine, tar + zstd snapshots under the state directory",
  configSchema: localConfigSchema,
  envSchema: z.object({}),
  capabilities: () => LOCAL_CAPABILITIES,
  create: (ctx) =>
    new LocalProvider({
      stateDir: ctx.agentStateDir,
      sharedDir: ctx.stateDir,
      logger: ctx.logger,
      hostEnv: ctx.hostEnv,
      keepStopped: ctx.config.keepStopped,
    }),
  cost: () => ({
    lines: [{ label: "Sandbox (local)", quantity: "runs on this machine", usd: 0 }],
    alwaysOnUsd: 0,
    rates: [],
    note: "Local sandboxes are processes on this machine: no sandbox bill.",
  }),
};

import { LocalProvider } from "./local/local-provider";
import { registerProvider } from "./registry";

/** Registers the providers that ship with ClawRun; the composition root calls this once. */
export function registerBuiltinProviders(): void {
  registerProvider(
    "local",
    (ctx) =>
      new LocalProvider({ stateDir: ctx.stateDir, logger: ctx.logger, hostEnv: ctx.hostEnv }),
  );
}

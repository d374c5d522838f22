import type { Logger } from "pino";
import packageJson from "../../package.json";
import { type AppEnv, readEnv } from "../config/env";
import { type LoadedConfig, loadConfig } from "../config/load-config";
import { type ResolvedSecrets, resolveSecrets } from "../config/secrets";
import { createLogger } from "./logger";

/**
 * Composition root (DESIGN invariant 7): the one place that builds the object graph.
 * Built once per server process and cached on globalThis so Next's dev reloads reuse it.
 */
export interface AppContext {
  version: string;
  startedAt: number;
  env: AppEnv;
  config: LoadedConfig;
  secrets: ResolvedSecrets;
  logger: Logger;
}

const KEY = Symbol.for("clawrun.context");
type Holder = { [KEY]?: Promise<AppContext> };

export function getContext(): Promise<AppContext> {
  const holder = globalThis as Holder;
  if (!holder[KEY]) {
    holder[KEY] = buildContext().catch((err) => {
      holder[KEY] = undefined; // a fixed config or env is picked up by the next request
      throw err;
    });
  }
  return holder[KEY];
}

async function buildContext(): Promise<AppContext> {
  const env = readEnv();
  const logger = createLogger({ level: env.logLevel, production: env.production });
  const config = loadConfig(env.configPath);
  const secrets = resolveSecrets(env);
  return { version: packageJson.version, startedAt: Date.now(), env, config, secrets, logger };
}

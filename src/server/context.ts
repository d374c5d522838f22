import type { Logger } from "pino";
import packageJson from "../../package.json";
import { LIFECYCLE, type LifecycleTimings } from "../config/constants";
import { type AppEnv, readEnv } from "../config/env";
import { type LoadedConfig, loadConfig } from "../config/load-config";
import { type ResolvedSecrets, resolveSecrets } from "../config/secrets";
import { registerBuiltinAgents } from "./agents/builtin";
import { createAgent } from "./agents/registry";
import { resolveAgentEnv } from "./agents/resolve-env";
import type { Agent } from "./agents/types";
import { GenericChannel } from "./channels/generic";
import type { Channel } from "./channels/types";
import { createLogger } from "./logger";
import { registerBuiltinProviders } from "./providers/builtin";
import { getProvider } from "./providers/registry";
import type { SandboxProvider } from "./providers/types";
import { SandboxLifecycleManager } from "./sandbox/manager";
import { CountBasedRetention } from "./sandbox/retention";
import { createStore } from "./store";
import type { Store } from "./store/types";

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
  timings: LifecycleTimings;
  store: Store;
  provider: SandboxProvider;
  agent: Agent;
  channels: ReadonlyMap<string, Channel>;
  manager: SandboxLifecycleManager;
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
  const cfg = config.config;
  const timings: LifecycleTimings = { ...LIFECYCLE, ...env.timingOverrides };

  registerBuiltinProviders();
  registerBuiltinAgents();
  const store = createStore(env.store, {
    instance: cfg.instance.name,
    stateDir: env.stateDir,
    onVercel: env.onVercel,
  });
  const provider = getProvider(cfg.sandbox.provider, {
    config: cfg,
    stateDir: env.stateDir,
    logger,
    hostEnv: env.hostEnv,
  });
  const agent = createAgent(cfg.agent, {
    env: resolveAgentEnv(cfg.agent.env, env.passthrough),
    projectDir: process.cwd(),
  });
  const generic = new GenericChannel(
    secrets.secrets.CLAWRUN_WEBHOOK_SECRET,
    cfg.channels.generic?.replyUrl,
  );
  const channels = new Map<string, Channel>([[generic.name, generic]]);
  if (!env.publicUrl)
    throw new Error("CLAWRUN_PUBLIC_URL is not set: sidecars need it to send heartbeats");

  const manager = new SandboxLifecycleManager({
    store,
    provider,
    agent,
    hooks: [...channels.values()].map((c) => c.wakeHook),
    retention: new CountBasedRetention(timings.snapshotsKept),
    logger,
    config: cfg,
    timings,
    masterSecret: secrets.secrets.CLAWRUN_SECRET,
    publicUrl: env.publicUrl,
    clock: Date.now,
    channels,
  });
  return {
    version: packageJson.version,
    startedAt: Date.now(),
    env,
    config,
    secrets,
    logger,
    timings,
    store,
    provider,
    agent,
    channels,
    manager,
  };
}

import type { Logger } from "pino";
import packageJson from "../../package.json";
import { LIFECYCLE, type LifecycleTimings } from "../config/constants";
import { type AppEnv, inspectEnv, readEnv } from "../config/env";
import { withEnvironmentDefaults } from "../config/environment-defaults";
import type { LoadedConfig } from "../config/load-config";
import { secretPaths } from "../config/secret-paths";
import { type ResolvedSecrets, resolveSecrets } from "../config/secrets";
import type { SidecarTimings } from "../protocol/sidecar-config";
import type { Agent } from "./agents/types";
import type { Channel } from "./channels/types";
import { clawrunConfigSchema, loadClawrunConfig } from "./config-schema";
import { QStashWakeScheduler } from "./cron/qstash-wakes";
import type { WakeHook } from "./domain/wake-hook";
import type { WakeScheduler } from "./domain/wake-scheduler";
import { Inbox } from "./inbox/inbox";
import { createLogger } from "./logger";
import { createGatewayRuntime, type GatewayRuntime } from "./model-gateway/runtime";
import { buildAgent, buildChannels, buildProvider } from "./modules";
import type { SandboxProvider } from "./providers/types";
import { SandboxLifecycleManager } from "./sandbox/manager";
import { CountBasedRetention } from "./sandbox/retention";
import { createStore } from "./store";
import type { Store } from "./store/types";

/**
 * Composition root (docs/architecture.md): the one place that builds the object graph.
 * The server builds it once per process (cached on globalThis so Next's dev reloads reuse
 * it); tests build their own through `createAppContext` with their own environment.
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
  /** One-shot wakes for cron jobs (QStash), or null: the daily cron / local timer only. */
  wakeScheduler: WakeScheduler | null;
  /** The model gateway's per-process part: its upstream, the settlements it still owes. */
  modelGateway: GatewayRuntime;
  clock: () => number;
  /** Closes the store (tests; the server keeps its context for its lifetime). */
  close(): Promise<void>;
}

/** What a test may change; the server uses none of it. */
export interface ContextOptions {
  /** Environment variables (default: process.env, read only by src/config/env.ts). */
  source?: Record<string, string | undefined>;
  /** The project directory (default: the working directory). */
  cwd?: string;
  clock?: () => number;
  /** Fault injection around the real provider. */
  wrapProvider?: (provider: SandboxProvider) => SandboxProvider;
  /** Measurement or fault injection around the real store (benches count commands). */
  wrapStore?: (store: Store) => Store;
  /** Another agent object (e.g. a command agent built by the test). */
  agent?: Agent;
  sidecarTimings?: Partial<SidecarTimings>;
  /** Extra wake hooks (tests record register/teardown calls). */
  hooks?: WakeHook[];
  logger?: Logger;
}

const KEY = Symbol.for("clawrun.context");
type Holder = { [KEY]?: Promise<AppContext> };

export function getContext(): Promise<AppContext> {
  const holder = globalThis as Holder;
  if (!holder[KEY]) {
    holder[KEY] = createAppContext().catch((err) => {
      holder[KEY] = undefined; // a fixed config or env is picked up by the next request
      throw err;
    });
  }
  return holder[KEY];
}

export async function createAppContext(o: ContextOptions = {}): Promise<AppContext> {
  const cwd = o.cwd ?? process.cwd();
  const env = readEnv(o.source, cwd);
  const config = withEnvironmentDefaults(loadClawrunConfig(env.configPath), env);
  const logger =
    o.logger ??
    createLogger({
      level: env.logLevel,
      production: env.production,
      // Config values the schema marks secret never reach the log, even if the config is logged.
      redact: secretPaths(clawrunConfigSchema, config.config).map((p) => `config.${p}`),
    });
  const secrets = resolveSecrets(env);
  const cfg = config.config;
  const timings: LifecycleTimings = { ...LIFECYCLE, ...env.timingOverrides };
  const clock = o.clock ?? Date.now;
  if (!env.publicUrl)
    throw new Error("CLAWRUN_PUBLIC_URL is not set: sidecars need it to send heartbeats");

  const baseStore = createStore(env.store, {
    instance: cfg.instance.name,
    stateDir: env.stateDir,
    onVercel: env.onVercel,
  });
  const store = o.wrapStore ? o.wrapStore(baseStore) : baseStore;
  const baseProvider = buildProvider(cfg, env, logger);
  const provider = o.wrapProvider ? o.wrapProvider(baseProvider) : baseProvider;
  const agent = o.agent ?? buildAgent(cfg, env, cwd, secrets.secrets.CLAWRUN_SECRET);
  const channels = buildChannels(cfg, {
    env,
    secrets: secrets.secrets,
    publicUrl: env.publicUrl,
    kv: store.kv,
    clock,
    logger,
  });
  const hooks = [
    ...[...channels.values()].flatMap((c) => (c.wakeHook ? [c.wakeHook] : [])),
    ...(o.hooks ?? []),
  ];
  const inbox = new Inbox({
    store,
    provider,
    agent,
    channels,
    logger,
    clock,
    timings,
    masterSecret: secrets.secrets.CLAWRUN_SECRET,
  });
  const wakeScheduler = env.scheduler
    ? new QStashWakeScheduler({
        settings: env.scheduler,
        kv: store.kv,
        cronUrl: `${env.publicUrl}/api/cron`,
        protectionBypass: env.protectionBypass,
        clock,
        logger,
      })
    : undefined;
  const manager = new SandboxLifecycleManager({
    store,
    provider,
    agent,
    inbox,
    hooks,
    retention: new CountBasedRetention(timings.snapshotsKept),
    logger,
    config: cfg,
    timings,
    masterSecret: secrets.secrets.CLAWRUN_SECRET,
    publicUrl: env.publicUrl,
    protectionBypass: env.protectionBypass,
    clock,
    sidecarTimings: o.sidecarTimings,
    wakeScheduler,
  });
  return {
    version: packageJson.version,
    startedAt: clock(),
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
    wakeScheduler: wakeScheduler ?? null,
    modelGateway: createGatewayRuntime(cfg.agent, env),
    clock,
    close: () => store.close(),
  };
}

/**
 * What the setup checklist can build when the full context cannot (a fresh deployment with
 * variables missing): each part on its own, each failure kept as a message. The store is
 * built only when the environment names one.
 */
export interface SetupProbe {
  env: AppEnv | null;
  envProblems: string[];
  config: LoadedConfig | null;
  configProblem: string | null;
  store: Store | null;
  provider: SandboxProvider | null;
  providerProblem: string | null;
}

export function buildSetupProbe(o: Pick<ContextOptions, "source" | "cwd"> = {}): SetupProbe {
  const cwd = o.cwd ?? process.cwd();
  const { env, problems } = inspectEnv(o.source, cwd);
  const probe: SetupProbe = {
    env,
    envProblems: problems,
    config: null,
    configProblem: null,
    store: null,
    provider: null,
    providerProblem: null,
  };
  if (!env) return probe;
  try {
    probe.config = withEnvironmentDefaults(loadClawrunConfig(env.configPath), env);
  } catch (err) {
    probe.configProblem = (err as Error).message;
    return probe;
  }
  const cfg = probe.config.config;
  if (!(env.onVercel && env.store.kind === "sqlite")) {
    probe.store = createStore(env.store, {
      instance: cfg.instance.name,
      stateDir: env.stateDir,
      onVercel: env.onVercel,
    });
  }
  try {
    probe.provider = buildProvider(cfg, env, createLogger({ level: "silent", production: true }));
  } catch (err) {
    probe.providerProblem = (err as Error).message;
  }
  return probe;
}

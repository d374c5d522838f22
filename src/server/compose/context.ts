import { join } from "node:path";
import packageJson from "../../../package.json";
import { agentEnvSuffix } from "../../config/agents-config";
import { LIFECYCLE, type LifecycleTimings } from "../../config/constants";
import { type AppEnv, inspectEnv, readEnv } from "../../config/env";
import { withEnvironmentDefaults } from "../../config/environment-defaults";
import type { LoadedConfig } from "../../config/load-config";
import { secretPaths } from "../../config/secret-paths";
import { type ResolvedSecrets, resolveSecrets } from "../../config/secrets";
import { ClawrunError } from "../../protocol/clawrun-error";
import { deriveKey } from "../../protocol/derive-key";
import type { Agent } from "../agents/types";
import type { AppContext, ContextOptions } from "../app-context";
import { QStashWakeScheduler } from "../cron/qstash-wakes";
import { Inbox } from "../inbox/inbox";
import { createLogger } from "../logger";
import { createGatewayRuntime } from "../model-gateway/runtime";
import type { SandboxProvider } from "../providers/types";
import { layerBootKey } from "../sandbox/agent-layer";
import { startupBudgetMs } from "../sandbox/deps";
import { SandboxLifecycleManager } from "../sandbox/manager";
import { CountBasedRetention } from "../sandbox/plan/retention";
import { TemplatedProvider } from "../sandbox/templated/templated-provider";
import { createStore } from "../store";
import type { Store } from "../store/types";
import {
  type AgentConfig,
  agentConfigs,
  clawrunConfigSchema,
  loadClawrunConfig,
} from "./config-schema";
import { buildAgent, buildChannels, buildProvider } from "./modules";

/**
 * Composition root (docs/architecture.md): the one place that builds the object graph.
 * The server builds it once per process (cached on globalThis so Next's dev reloads reuse
 * it); tests build their own through `createAppContext` with their own environment.
 */
const KEY = Symbol.for("clawrun.contexts");
type Holder = { [KEY]?: Map<string, Promise<AppContext>> };

/**
 * The context of one agent (docs/several-agents.md), built on first use and kept;
 * no name means the default agent. An unknown name is an UnknownAgentError (404).
 */
export function getContext(agentName?: string): Promise<AppContext> {
  const holder = globalThis as Holder;
  holder[KEY] ??= new Map();
  const cache = holder[KEY];
  const key = agentName ?? "";
  let ctx = cache.get(key);
  if (!ctx) {
    ctx = buildCached(agentName).catch((err) => {
      cache.delete(key); // a fixed config or env is picked up by the next request
      throw err;
    });
    cache.set(key, ctx);
  }
  return ctx;
}

async function buildCached(agentName: string | undefined): Promise<AppContext> {
  if (agentName === undefined) return createAppContext();
  const first = await getContext();
  if (first.agentName === agentName) return first;
  return createAppContext({ agentName, deploymentStore: first.store });
}

/** The names of the deployment's agents, in file order, with the default one marked. */
export async function listAgents(): Promise<{ name: string; isDefault: boolean }[]> {
  const first = await getContext();
  return agentConfigs(loadClawrunConfig(first.env.configPath)).map((a) => ({
    name: a.name,
    isDefault: a.isDefault,
  }));
}

/** Every agent's context, the default one first: the local tick, the daily cron, shutdown. */
export async function allContexts(): Promise<AppContext[]> {
  const agents = await listAgents();
  const ordered = [...agents.filter((a) => a.isDefault), ...agents.filter((a) => !a.isDefault)];
  return Promise.all(ordered.map((a) => getContext(a.isDefault ? undefined : a.name)));
}

export async function createAppContext(o: ContextOptions = {}): Promise<AppContext> {
  const cwd = o.cwd ?? process.cwd();
  const deploymentEnv = readEnv(o.source, cwd);
  const me = pickAgent(agentConfigs(loadClawrunConfig(deploymentEnv.configPath)), o.agentName);
  const env = agentEnv(deploymentEnv, me);
  const config = withEnvironmentDefaults(me.loaded, env);
  const logger =
    o.logger ??
    createLogger({
      level: env.logLevel,
      production: env.production,
      // Config values the schema marks secret never reach the log, even if the config is logged.
      redact: secretPaths(clawrunConfigSchema, config.config).map((p) => `config.${p}`),
    });
  const deploymentSecrets = resolveSecrets(deploymentEnv);
  const secrets = agentSecrets(deploymentSecrets, me);
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
  const deploymentStore = o.deploymentStore ?? store;
  const agentStateDir = me.deploymentKeys ? env.stateDir : join(env.stateDir, "agents", me.name);
  // Provider credentials are the deployment's (docs/several-agents.md): its environment, not the agent's.
  const baseProvider = buildProvider(cfg, deploymentEnv, logger, agentStateDir);
  const agent = o.agent ?? buildAgent(cfg, env, cwd, secrets.secrets.CLAWRUN_SECRET);
  const provider = withLayerTemplates(
    o.wrapProvider ? o.wrapProvider(baseProvider) : baseProvider,
    { agent, store, instance: cfg.instance.name, timings, clock, logger },
  );
  const channels = buildChannels(cfg, {
    env,
    agent: me.deploymentKeys ? null : me.name,
    secrets: secrets.secrets,
    publicUrl: deploymentEnv.publicUrl as string,
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
    agentName: me.name,
    deployment: { env: deploymentEnv, logger, secrets: deploymentSecrets, store: deploymentStore },
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

export class UnknownAgentError extends ClawrunError {
  static override readonly errorName = "UnknownAgentError";
  constructor(name: string, known: string[]) {
    super("not_found", `no agent named "${name}" in clawrun.json (agents: ${known.join(", ")})`, {
      status: 404,
    });
  }
}

function pickAgent(agents: AgentConfig[], name: string | undefined): AgentConfig {
  const found = agents.find((a) => (name === undefined ? a.isDefault : a.name === name));
  if (!found)
    throw new UnknownAgentError(
      String(name),
      agents.map((a) => a.name),
    );
  return found;
}

/**
 * An agent other than the one named `instance.name` is reached under its own prefix
 * (`<public URL>/agents/<name>`: heartbeats, the model gateway, scheduled wakes; next.config.ts
 * routes it) and reads its own channel variables (`NAME__<AGENT>`).
 */
function agentEnv(env: AppEnv, me: AgentConfig): AppEnv {
  if (me.deploymentKeys) return env;
  return {
    ...env,
    publicUrl: env.publicUrl ? `${env.publicUrl}/agents/${me.name}` : null,
    moduleEnv: env.agentModuleEnv(agentEnvSuffix(me.name)),
  };
}

/** Every agent but the one named `instance.name` has its own CLAWRUN_SECRET, derived per name. */
function agentSecrets(secrets: ResolvedSecrets, me: AgentConfig): ResolvedSecrets {
  if (me.deploymentKeys) return secrets;
  const own = deriveKey(secrets.secrets.CLAWRUN_SECRET, `agent-secret/${me.name}`);
  return {
    ...secrets,
    secrets: { ...secrets.secrets, CLAWRUN_SECRET: own.toString("base64url") },
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

/**
 * On a provider that bakes agent layers into template snapshots (capabilities.layerTemplates),
 * an agent with a layer gets the templated provider around it (sandbox/templated/); any
 * other combination is the provider as it is.
 */
function withLayerTemplates(
  provider: SandboxProvider,
  o: {
    agent: Agent;
    store: Store;
    instance: string;
    timings: LifecycleTimings;
    clock: () => number;
    logger: AppContext["logger"];
  },
): SandboxProvider {
  const templates = provider.capabilities.layerTemplates;
  const recipe = o.agent.layer?.();
  if (!templates || !recipe) return provider;
  return new TemplatedProvider(provider, {
    store: o.store,
    recipe,
    instance: o.instance,
    maxStateArchiveBytes: templates.maxStateArchiveBytes,
    bootKey: layerBootKey(o.instance, o.agent.name),
    // What changes while an agent idles: the sidecar's log and files, the agent's own list.
    volatile: ["logs", ".clawrun", ...(o.agent.activityIgnore ?? [])],
    buildTimeoutMs: startupBudgetMs({ agent: o.agent, timings: o.timings }),
    clock: o.clock,
    logger: o.logger,
  });
}

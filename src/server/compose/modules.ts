import type { Logger } from "pino";
import type { AppEnv } from "../../config/env";
import { ConfigError } from "../../config/load-config";
import type { ClawrunConfig } from "../../config/schema";
import { deriveKey } from "../../protocol/derive-key";
import { findAgent } from "../agents";
import { resolveAgentEnv } from "../agents/resolve-env";
import type { Agent } from "../agents/types";
import { CHANNELS } from "../channels";
import { MisconfiguredChannel } from "../channels/misconfigured-channel";
import type { Channel, ChannelKv } from "../channels/types";
import { channelWebhookUrl } from "../channels/webhook-url";
import { gatewayRootUrl } from "../model-gateway/agent-model";
import { resolveProviderSetup } from "../providers/provider-setup";
import type { SandboxProvider } from "../providers/types";
import type { KvStore } from "../store/types";

/**
 * Builds the configured provider, agent and channels from their modules: each module parses
 * its own clawrun.json section and the environment variables it declared. Called only by
 * the composition root.
 */

export function buildProvider(
  cfg: ClawrunConfig,
  env: AppEnv,
  logger: Logger,
  /** The agent's own directory (docs/several-agents.md); default: the state directory. */
  agentStateDir = env.stateDir,
): SandboxProvider {
  const { module, config, credentials } = resolveProviderSetup(cfg, env);
  return module.create({
    config,
    env: credentials,
    instance: cfg.instance.name,
    stateDir: env.stateDir,
    agentStateDir,
    logger,
    hostEnv: env.hostEnv,
  });
}

/**
 * The configured agent. Everything it needs from the environment is read here, at server
 * start, so an unset `fromEnv` variable is a ConfigError before any sandbox is created.
 */
export function buildAgent(
  cfg: ClawrunConfig,
  env: AppEnv,
  projectDir: string,
  masterSecret: string,
): Agent {
  const module = findAgent(cfg.agent.type);
  if (!module)
    throw new ConfigError([`clawrun.json: agent.type: unknown agent "${cfg.agent.type}"`]);
  let agentEnv: Record<string, string>;
  try {
    agentEnv = resolveAgentEnv(cfg.agent.env, env.passthrough);
  } catch (err) {
    throw new ConfigError((err as Error).message.split("\n"));
  }
  return module.create(cfg.agent, {
    env: agentEnv,
    projectDir,
    passthrough: env.passthrough,
    deriveSecret: (purpose) => deriveKey(masterSecret, `agent/${purpose}`).toString("base64url"),
    modelGatewayUrl: env.publicUrl ? gatewayRootUrl(env.publicUrl) : null,
  });
}

export interface ChannelBuildDeps {
  env: AppEnv;
  /** The agent's name when it is not the deployment's first (its webhooks carry it), else null. */
  agent: string | null;
  /** ClawRun's resolved secrets (generated locally): channels may declare them. */
  secrets: Record<string, string>;
  publicUrl: string;
  kv: KvStore;
  clock: () => number;
  logger: Logger;
}

/** The channels present under `channels` in clawrun.json, in the order of the channel list. */
export function buildChannels(cfg: ClawrunConfig, d: ChannelBuildDeps): Map<string, Channel> {
  const channels = new Map<string, Channel>();
  for (const module of CHANNELS) {
    const section = cfg.channels[module.name];
    if (section === undefined) continue;
    const config = parseSection(module.configSchema, section, `channels.${module.name}`);
    const webhookUrl = channelWebhookUrl(
      { publicUrl: d.publicUrl, protectionBypass: d.env.protectionBypass, agent: d.agent },
      module.name,
    );
    const env = d.env.moduleEnv(module.envSchema, d.secrets);
    if (!env.ok) {
      d.logger.warn({ channel: module.name, missing: env.missing }, "channel is not set up");
      channels.set(
        module.name,
        new MisconfiguredChannel(module.name, env.missing, env.problems, webhookUrl),
      );
      continue;
    }
    channels.set(
      module.name,
      module.create(config, {
        env: env.value,
        publicUrl: d.publicUrl,
        protectionBypass: d.env.protectionBypass,
        agent: d.agent,
        kv: channelKv(d.kv, module.name),
        clock: d.clock,
        logger: d.logger.child({ channel: module.name }),
      }),
    );
  }
  return channels;
}

/** A channel's own key space in the store. */
export function channelKv(store: KvStore, channel: string): ChannelKv {
  const key = (k: string) => `channel:${channel}:${k}`;
  return {
    get: (k) => store.get(key(k)),
    set: (k, v, ttlMs) => store.set(key(k), v, ttlMs),
    delete: (k) => store.delete(key(k)),
  };
}

function parseSection<T>(
  schema: { safeParse(v: unknown): { success: true; data: T } | { success: false } },
  value: unknown,
  where: string,
): T {
  const parsed = schema.safeParse(value ?? {});
  // The assembled schema already validated the section; this only fills its defaults.
  if (!parsed.success) throw new ConfigError([`clawrun.json: ${where}: invalid section`]);
  return parsed.data;
}

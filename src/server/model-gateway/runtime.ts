import type { AppEnv } from "../../config/env";
import { agentModelOf } from "./agent-model";
import { SettlementBacklog } from "./settlement-backlog";
import { DEFAULT_BASE_URLS, type Upstream, type UpstreamKind } from "./upstream";
import { keepAliveUpstream, type UpstreamFetch } from "./upstream-client";

/**
 * What the gateway keeps for the life of a server process: the upstream resolved once from
 * clawrun.json and the environment (not per call), its kept-alive connections, and the
 * settlements this server still owes the store.
 */
export interface GatewayRuntime {
  /** Null: the agent uses no model, or its key is not set in ClawRun's environment. */
  upstream: Upstream | null;
  backlog: SettlementBacklog;
  /** Keep-alive connections to the upstream, shared by all calls of this process. */
  fetchUpstream: UpstreamFetch;
}

const KINDS: readonly string[] = [
  "openai",
  "anthropic",
  "openai-compatible",
  "vercel-ai-gateway",
] satisfies UpstreamKind[];

/**
 * The upstream the agent section of clawrun.json names (provider, baseUrl, apiKey.fromEnv),
 * with the real key read from ClawRun's environment.
 */
export function resolveUpstream(agentSection: unknown, env: Pick<AppEnv, "passthrough">) {
  const agent = agentModelOf(agentSection);
  if (!agent || !KINDS.includes(agent.provider)) return null;
  const kind = agent.provider as UpstreamKind;
  const apiKey = env.passthrough(agent.apiKeyEnv);
  if (!apiKey) return null;
  const baseUrl = kind === "openai-compatible" ? agent.baseUrl : DEFAULT_BASE_URLS[kind];
  return baseUrl ? { kind, baseUrl, apiKey } : null;
}

export function createGatewayRuntime(
  agentSection: unknown,
  env: Pick<AppEnv, "passthrough">,
): GatewayRuntime {
  return {
    upstream: resolveUpstream(agentSection, env),
    backlog: new SettlementBacklog(),
    fetchUpstream: keepAliveUpstream(),
  };
}

import type { AppContext } from "../app-context";
import { agentModelOf } from "../model-gateway/agent-model";
import { holderIsCurrent } from "../model-gateway/credential";
import type { GatewayDeps } from "../model-gateway/forward";
import { DEFAULT_BASE_URLS, type Upstream, type UpstreamKind } from "../model-gateway/upstream";

/**
 * The upstream the agent section of clawrun.json names (provider, baseUrl, apiKey.fromEnv),
 * with the real key read from ClawRun's environment; null when the agent uses no model or the
 * key is unset (the gateway then answers 503, the agent's config check already says why).
 */
export function upstreamOf(ctx: AppContext): Upstream | null {
  const agent = agentModelOf(ctx.config.config.agent);
  const kinds: UpstreamKind[] = ["openai", "anthropic", "openai-compatible", "vercel-ai-gateway"];
  if (!agent || !kinds.includes(agent.provider as UpstreamKind)) return null;
  const kind = agent.provider as UpstreamKind;
  const apiKey = ctx.env.passthrough(agent.apiKeyEnv);
  if (!apiKey) return null;
  const baseUrl = kind === "openai-compatible" ? agent.baseUrl : DEFAULT_BASE_URLS[kind];
  return baseUrl ? { kind, baseUrl, apiKey } : null;
}

/** Everything the gateway needs, taken from the app's one context. */
export function gatewayDepsOf(ctx: AppContext, upstream: Upstream): GatewayDeps {
  const { modelGateway } = ctx.config.config;
  return {
    upstream,
    budget: modelGateway.budget,
    prices: modelGateway.prices,
    allowUnpriced: modelGateway.allowUnpriced,
    timeoutMs: modelGateway.timeoutMs,
    usage: ctx.store.usage,
    masterSecret: ctx.secrets.secrets.CLAWRUN_SECRET,
    clock: ctx.clock,
    isCurrentSandbox: async (holder) =>
      holderIsCurrent((await ctx.store.state.get())?.value ?? null, holder),
    logError: (message, details) => ctx.logger.error(details, message),
    notify: async (event) => {
      await ctx.store.events.append({
        at: ctx.clock(),
        type: event.type.replace("_", "-"),
        level: event.type === "model.budget_reached" ? "error" : "warn",
        sandboxId: null,
        message: event.message,
        details: { period: event.period },
      });
    },
  };
}

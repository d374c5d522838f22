import { after } from "next/server";
import type { AppContext } from "../app-context";
import { tellConversationOnce } from "../model-gateway/cap-notice";
import type { GatewayDeps } from "../model-gateway/forward";
import type { Upstream } from "../model-gateway/upstream";

/**
 * The upstream resolved when the context was built; null when the agent uses no model or the
 * key is unset (the gateway then answers 503, the agent's config check already says why).
 */
export function upstreamOf(ctx: AppContext): Upstream | null {
  return ctx.modelGateway.upstream;
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
    backlog: ctx.modelGateway.backlog,
    masterSecret: ctx.secrets.secrets.CLAWRUN_SECRET,
    clock: ctx.clock,
    fetchUpstream: ctx.modelGateway.fetchUpstream,
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
    afterResponse: (work) => {
      try {
        after(work);
        return Promise.resolve();
      } catch {
        return work(); // not inside a request (a script, a test): just do it
      }
    },
    tellConversation: async (delivery, notice) => {
      await tellConversationOnce(ctx.store, delivery, notice);
    },
  };
}

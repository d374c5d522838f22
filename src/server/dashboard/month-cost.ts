import type { AppContext } from "../app-context";
import { readUsageView } from "../model-gateway/read-usage";
import { findProvider } from "../providers";
import { type CostSummary, monthCost, monthStartUtc } from "./cost";
import { type ModelSpendCard, modelSpendCard } from "./model-spend";

/**
 * The cost card's model section: spend, caps, and whether a cap is refusing calls now, all
 * from the usage counters (the refusal's mark is kept with them, not looked up in the events).
 */
async function modelCardOf(
  ctx: AppContext,
  now: number,
): Promise<{ card: ModelSpendCard | null; monthUsd: number }> {
  const view = await readUsageView(ctx.store.usage, ctx.config.config.modelGateway.budget, now);
  const monthUsd = view.month.spentUsd;
  if (ctx.modelGateway.upstream === null && monthUsd === 0) return { card: null, monthUsd };
  return { card: modelSpendCard(view), monthUsd };
}

/**
 * Gathers the facts for monthCost (awake intervals, snapshot sizes) and prices them: three
 * store reads (state, awake intervals, usage counters) and one provider snapshot listing. The
 * fleet's cost card (fleet-cost.ts) calls this once per agent.
 */
export async function monthCostOf(ctx: AppContext, now = ctx.clock()): Promise<CostSummary> {
  const state = (await ctx.manager.getState()).value;
  const [intervals, snapshots, model] = await Promise.all([
    ctx.store.awake.list(monthStartUtc(now)),
    ctx.provider.listSnapshots().catch(() => []),
    modelCardOf(ctx, now),
  ]);
  const summary = monthCost({
    provider: ctx.provider.name,
    sandboxCost: findProvider(ctx.provider.name)?.cost,
    store: ctx.env.store.kind,
    vcpus: ctx.config.config.sandbox.resources.vcpus,
    intervals,
    openSince: state.sandboxId ? state.sandboxCreatedAt : null,
    snapshotBytes: snapshots.reduce((s, x) => s + x.sizeBytes, 0),
    heartbeatIntervalMs: ctx.timings.heartbeatIntervalMs,
    now,
  });
  return { ...summary, model: model.card, modelMonthUsd: model.monthUsd };
}

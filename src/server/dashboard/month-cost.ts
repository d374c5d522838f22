import type { AppContext } from "../app-context";
import { readUsageView } from "../model-gateway/read-usage";
import { findProvider } from "../providers";
import { type CostSummary, monthCost, monthStartUtc } from "./cost";
import { type ModelSpendCard, modelSpendCard } from "./model-spend";

/** Enough of the event log to find this period's last refusal or raise among other events. */
const EVENTS_READ = 200;

/** The cost card's model section: spend, caps, and whether a cap is refusing calls now. */
async function modelCardOf(ctx: AppContext, now: number): Promise<ModelSpendCard | null> {
  const [view, events] = await Promise.all([
    readUsageView(ctx.store.usage, ctx.config.config.modelGateway.budget, now),
    ctx.store.events.list(EVENTS_READ),
  ]);
  if (ctx.modelGateway.upstream === null && view.month.spentUsd === 0) return null;
  return modelSpendCard(view, events);
}

/** Gathers the facts for monthCost (awake intervals, snapshot sizes) and prices them. */
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
  return { ...summary, model };
}

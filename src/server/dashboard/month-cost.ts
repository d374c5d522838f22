import type { AppContext } from "../app-context";
import { type CostSummary, monthCost, monthStartUtc } from "./cost";

/** Gathers the facts for monthCost (awake intervals, snapshot sizes) and prices them. */
export async function monthCostOf(ctx: AppContext, now = ctx.clock()): Promise<CostSummary> {
  const state = (await ctx.manager.getState()).value;
  const [intervals, snapshots] = await Promise.all([
    ctx.store.awake.list(monthStartUtc(now)),
    ctx.provider.listSnapshots().catch(() => []),
  ]);
  return monthCost({
    provider: ctx.provider.name,
    store: ctx.env.store.kind,
    vcpus: ctx.config.config.sandbox.resources.vcpus,
    intervals,
    openSince: state.sandboxId ? state.sandboxCreatedAt : null,
    snapshotBytes: snapshots.reduce((s, x) => s + x.sizeBytes, 0),
    heartbeatIntervalMs: ctx.timings.heartbeatIntervalMs,
    now,
  });
}

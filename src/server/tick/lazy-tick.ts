import type { AppContext } from "../app-context";
import type { RouteResult } from "../http/route";
import { nextTickDelayMs } from "./tick-loop";

type LazyTickContext = Pick<AppContext, "env" | "store" | "manager" | "logger" | "timings">;

/** Counter that spaces lazy ticks out across all function instances. */
const KEY = "lazy-tick";

/**
 * Where no periodic tick runs (Vercel on Hobby allows a daily cron only), requests stand in
 * for it (docs/deploy.md, "No per-minute cron"): after an accepted heartbeat, webhook or
 * dashboard view, the reconcile tick runs at most once per tick interval (a minute, the cadence
 * a per-minute cron would have had), so a sandbox that died is noticed and the cron schedule
 * kept without a timer. Locally the in-process timer ticks.
 * Costs one store command per request: the first hit of a tick-interval window ticks, the
 * others return (atomic across function instances, unlike a read then a write).
 */
export async function lazyTick(ctx: LazyTickContext): Promise<void> {
  if (ctx.env.localTick) return;
  const { count } = await ctx.store.counters.hit(KEY, ctx.timings.tickIntervalMs);
  if (count > 1) return;
  let report = await ctx.manager.tick();
  // The lock was held — by another operation, or by a holder that died (its lease ends within
  // one lease): this window's tick is ours, so try again after half a lease rather than leave
  // the window without a tick (an orphan left by the dead holder would run on for a minute or
  // more). Retries span two leases; if the lock is still held, the window is given back so the
  // next request on any instance ticks.
  for (let waited = 0; !report.ran && waited < 2 * ctx.timings.lockLeaseMs; ) {
    const delay = nextTickDelayMs(report, ctx.timings, Date.now());
    await new Promise((r) => setTimeout(r, delay));
    waited += delay;
    report = await ctx.manager.tick();
  }
  if (!report.ran) await ctx.store.counters.clear(KEY);
  if (report.actions.length > 0 || report.errors.length > 0)
    ctx.logger.info({ actions: report.actions, errors: report.errors }, "lazy tick");
}

/** Adds a lazy tick after the response of a request that was accepted (2xx). */
export function withLazyTick(ctx: LazyTickContext, result: RouteResult): RouteResult {
  if (ctx.env.localTick) return result;
  const response = result instanceof Response ? result : result.response;
  if (!response.ok) return result;
  const before = result instanceof Response ? null : result.followUp;
  return {
    response,
    followUp: async () => {
      await before?.();
      await lazyTick(ctx);
    },
  };
}

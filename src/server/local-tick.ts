import { getContext } from "./context";

const KEY = Symbol.for("clawrun.local-tick");

/**
 * On one machine there is no Vercel Cron: the server ticks itself every tickIntervalMs.
 * One timer per process (dev reloads reuse it); a tick never overlaps the previous one.
 */
export async function startLocalTick(): Promise<void> {
  const holder = globalThis as { [KEY]?: NodeJS.Timeout };
  if (holder[KEY]) return;
  const ctx = await getContext();
  if (!ctx.env.localTick) return;
  let running = false;
  const tick = async () => {
    if (running) return;
    running = true;
    try {
      const report = await ctx.manager.tick();
      if (report.actions.length > 0)
        ctx.logger.info({ actions: report.actions, errors: report.errors }, "tick");
    } catch (err) {
      ctx.logger.warn({ err: (err as Error).message }, "tick failed; the next one retries");
    } finally {
      running = false;
    }
  };
  holder[KEY] = setInterval(tick, ctx.timings.tickIntervalMs);
  holder[KEY].unref();
  void tick(); // reconcile at once after a restart (e.g. sandboxes that died meanwhile)
}

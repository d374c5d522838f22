import { getContext } from "../compose/context";
import { startTickLoop, type TickLoop } from "./tick-loop";

const KEY = Symbol.for("clawrun.local-tick");

/**
 * On one machine there is no Vercel Cron: the server runs the reconcile loop itself.
 * One loop per process (dev reloads reuse it).
 */
export async function startLocalTick(): Promise<void> {
  const holder = globalThis as { [KEY]?: TickLoop };
  if (holder[KEY]) return;
  const ctx = await getContext();
  if (!ctx.env.localTick) return;
  holder[KEY] = startTickLoop(ctx.manager, ctx.timings, ctx.logger);
}

/** Stops this process's loop (a stopping server must not wake the agent it puts to sleep). */
export function stopLocalTick(): void {
  const holder = globalThis as { [KEY]?: TickLoop };
  holder[KEY]?.stop();
  delete holder[KEY];
}

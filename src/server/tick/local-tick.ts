import { allContexts } from "../compose/context";
import { startTickLoop, type TickLoop } from "./tick-loop";

const KEY = Symbol.for("clawrun.local-tick");

/**
 * On one machine there is no Vercel Cron: the server runs the reconcile loop itself, one
 * per agent (docs/several-agents.md), so one agent's slow tick never delays another's.
 * One set of loops per process (dev reloads reuse it).
 */
export async function startLocalTick(): Promise<void> {
  const holder = globalThis as { [KEY]?: TickLoop[] };
  if (holder[KEY]) return;
  const contexts = await allContexts();
  if (!contexts[0]?.env.localTick) return;
  holder[KEY] = contexts.map((ctx) => startTickLoop(ctx.manager, ctx.timings, ctx.logger));
}

/** Stops this process's loops (a stopping server must not wake the agents it puts to sleep). */
export function stopLocalTick(): void {
  const holder = globalThis as { [KEY]?: TickLoop[] };
  for (const loop of holder[KEY] ?? []) loop.stop();
  delete holder[KEY];
}

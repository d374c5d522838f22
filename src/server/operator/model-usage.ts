import { z } from "zod";
import type { AppContext } from "../app-context";
import { utcDay } from "../model-gateway/periods";
import { readUsageView } from "../model-gateway/read-usage";
import type { UsageView } from "../model-gateway/usage-view";

export async function modelUsageOf(
  ctx: Pick<AppContext, "clock" | "config" | "store">,
  now = ctx.clock(),
): Promise<UsageView> {
  return readUsageView(ctx.store.usage, ctx.config.config.modelGateway.budget, now);
}

export const raiseBodySchema = z.strictObject({
  /** USD added to today's daily cap (UTC day); tomorrow the configured cap applies again. */
  usd: z
    .number({ error: "expected a number of US dollars" })
    .positive({ error: "expected more than 0 dollars" })
    .max(10_000, { error: "expected at most 10000 dollars at a time" }),
});

/** Raises today's cap and records who-knows-why in the event log: spend changes are auditable. */
export async function raiseTodayCap(
  ctx: Pick<AppContext, "clock" | "config" | "store">,
  usd: number,
): Promise<UsageView> {
  const now = ctx.clock();
  const micros = Math.round(usd * 1e6);
  await ctx.store.usage.raise(utcDay(now), micros);
  await ctx.store.events.append({
    at: now,
    type: "model.budget-raised",
    level: "info",
    sandboxId: null,
    message: `the operator raised today's model budget by $${usd}`,
    details: { usd, day: utcDay(now) },
  });
  return modelUsageOf(ctx);
}

import type { UsageStore } from "../store/types";
import type { Budget } from "./caps";
import { utcDay, utcMonth } from "./periods";
import { type UsageView, usageView } from "./usage-view";

/** Today's and this month's spend, read in one store call and shaped against the caps. */
export async function readUsageView(
  usage: Pick<UsageStore, "read">,
  budget: Budget | undefined,
  now: number,
): Promise<UsageView> {
  return usageView(await usage.read(utcDay(now), utcMonth(now)), budget, now);
}

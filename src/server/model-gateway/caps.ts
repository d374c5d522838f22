import { type Budget, budgetSchema } from "../../config/model-gateway-schema";
import { formatUsd } from "./cost";
import { nextUtcDay, nextUtcMonth } from "./periods";

export { type Budget, budgetSchema };

/** Fraction of a cap at which the operator is warned once per period. */
export const WARN_AT = 0.8;

export type CapPeriod = "daily" | "monthly";

/** What is spent (settled) and held (reserved, not yet settled) in the current periods. */
export interface Spend {
  dayMicros: number;
  monthMicros: number;
}

export interface CapLimits {
  /** Micro-USD; null: no cap. Includes the operator's raise for today. */
  daily: number | null;
  monthly: number | null;
}

/** Pure: the budget in micro-USD, with today's operator raise added to the daily cap. */
export function capLimits(budget: Budget | undefined, raiseTodayMicros = 0): CapLimits {
  return {
    daily: budget?.daily === undefined ? null : Math.round(budget.daily * 1e6) + raiseTodayMicros,
    monthly: budget?.monthly === undefined ? null : Math.round(budget.monthly * 1e6),
  };
}

export type CapDecision =
  | { allow: true }
  | { allow: false; period: CapPeriod; limitMicros: number; resetsAt: number };

/**
 * Pure: may a call reserving `reservation` proceed, given what is spent and held? Refused when
 * it would take a period past its cap; the daily cap is reported first (it resets sooner).
 * Holding the reservation until settlement is what bounds the overshoot of racing calls.
 */
export function decideCap(
  spend: Spend,
  reservation: number,
  limits: CapLimits,
  now: number,
): CapDecision {
  if (limits.daily !== null && spend.dayMicros + reservation > limits.daily) {
    return { allow: false, period: "daily", limitMicros: limits.daily, resetsAt: nextUtcDay(now) };
  }
  if (limits.monthly !== null && spend.monthMicros + reservation > limits.monthly) {
    return {
      allow: false,
      period: "monthly",
      limitMicros: limits.monthly,
      resetsAt: nextUtcMonth(now),
    };
  }
  return { allow: true };
}

/**
 * Pure: the periods whose 80 % line a settlement crossed (before < line <= after), so the
 * warning is raised once, by the call that crossed it, however many instances settle at once.
 */
export function crossedWarnings(before: Spend, after: Spend, limits: CapLimits): CapPeriod[] {
  const crossed: CapPeriod[] = [];
  const check = (period: CapPeriod, limit: number | null, b: number, a: number) => {
    if (limit === null) return;
    const line = limit * WARN_AT;
    if (b < line && a >= line) crossed.push(period);
  };
  check("daily", limits.daily, before.dayMicros, after.dayMicros);
  check("monthly", limits.monthly, before.monthMicros, after.monthMicros);
  return crossed;
}

/** The one sentence the agent (and so the chat) gets when a cap refuses a call. */
export function capMessage(decision: Extract<CapDecision, { allow: false }>): string {
  const when =
    decision.period === "daily"
      ? `it resets at 00:00 UTC`
      : `it resets on ${new Date(decision.resetsAt).toISOString().slice(0, 10)} at 00:00 UTC`;
  return `This agent reached its ${decision.period} budget of ${formatUsd(decision.limitMicros)}; ${when}.`;
}

import type { ConversationSpend, UsageTotals } from "../store/types";
import { splitConversationKey } from "./attribution";
import { type Budget, capLimits, WARN_AT } from "./caps";
import { nextUtcDay, nextUtcMonth, utcDay, utcMonth } from "./periods";
import { PRICE_TABLE_DATE } from "./prices";

/** What the operator sees of model spend: GET /api/sandbox/usage, `clawrun usage`, the cost card. */
export interface UsageView {
  currency: "USD";
  priceTableDate: string;
  today: PeriodView & { day: string; raisedUsd: number };
  month: PeriodView & { month: string };
}

interface PeriodView {
  spentUsd: number;
  capUsd: number | null;
  /** At or past 80 % of the cap. */
  warning: boolean;
  /** A call was refused at the current cap (a raise of today's cap clears it until the next). */
  reached: boolean;
  resetsAt: string;
  models: {
    model: string;
    costUsd: number;
    calls: number;
    inputTokens: number;
    outputTokens: number;
    cachedInputTokens: number;
  }[];
  /** Most expensive first; `conversation` null: calls while no single delivery was open. */
  conversations: {
    channel: string | null;
    conversation: string | null;
    costUsd: number;
    calls: number;
  }[];
}

const usd = (micros: number) => Math.round(micros) / 1e6;

/** Pure: the stored totals as the operator's view (spent includes calls still in flight). */
export function usageView(totals: UsageTotals, budget: Budget | undefined, now: number): UsageView {
  const limits = capLimits(budget, totals.day.raiseMicros);
  const models = (m: UsageTotals["day"]["models"]) =>
    Object.entries(m)
      .map(([model, s]) => ({
        model,
        costUsd: usd(s.costMicros),
        calls: s.calls,
        inputTokens: s.inputTokens,
        outputTokens: s.outputTokens,
        cachedInputTokens: s.cachedInputTokens,
      }))
      .sort((a, b) => b.costUsd - a.costUsd);
  const conversations = (c: Record<string, ConversationSpend>) =>
    Object.entries(c)
      .map(([key, s]) => {
        const who = splitConversationKey(key);
        return {
          channel: who?.channel ?? null,
          conversation: who?.conversation ?? null,
          costUsd: usd(s.costMicros),
          calls: s.calls,
        };
      })
      .sort((a, b) => b.costUsd - a.costUsd);
  const warn = (spent: number, cap: number | null) => cap !== null && spent >= cap * WARN_AT;
  // The store marks the cap a refusal hit; it is this period's state while the cap is unchanged.
  const reached = (mark: number | null, cap: number | null) => cap !== null && mark === cap;
  return {
    currency: "USD",
    priceTableDate: PRICE_TABLE_DATE,
    today: {
      day: utcDay(now),
      spentUsd: usd(totals.day.totalMicros),
      capUsd: limits.daily === null ? null : usd(limits.daily),
      raisedUsd: usd(totals.day.raiseMicros),
      warning: warn(totals.day.totalMicros, limits.daily),
      reached: reached(totals.day.reachedMicros, limits.daily),
      resetsAt: new Date(nextUtcDay(now)).toISOString(),
      models: models(totals.day.models),
      conversations: conversations(totals.day.conversations),
    },
    month: {
      month: utcMonth(now),
      spentUsd: usd(totals.month.totalMicros),
      capUsd: limits.monthly === null ? null : usd(limits.monthly),
      warning: warn(totals.month.totalMicros, limits.monthly),
      reached: reached(totals.month.reachedMicros, limits.monthly),
      resetsAt: new Date(nextUtcMonth(now)).toISOString(),
      models: models(totals.month.models),
      conversations: conversations(totals.month.conversations),
    },
  };
}

import type { PriceSource } from "../providers/cost-types";
import type { CostSummary } from "./cost";

/** One agent's line on the fleet's cost card (docs/api.md, `GET /api/fleet/cost`). */
export interface FleetCostLine {
  name: string;
  isDefault: boolean;
  provider: string;
  awakeMs: number;
  /** The single agent card's total: the sandbox on its provider plus the store's commands. */
  sandboxUsd: number;
  /** Model spend through the gateway this month. */
  modelUsd: number;
  totalUsd: number;
  /** The sandbox lines are upper bounds (Active CPU) or the provider publishes no prices. */
  atMost: boolean;
  unpriced: boolean;
  /** Its figures could not be read: left out of the total, which says so. */
  error: string | null;
}

export interface FleetCost {
  monthStart: number;
  agents: FleetCostLine[];
  total: { sandboxUsd: number; modelUsd: number; totalUsd: number };
  /** Some agent's figures are missing from the total (its line has the error). */
  incomplete: boolean;
  /** Every price source used, once. */
  rates: PriceSource[];
}

export type FleetCostEntry = { name: string; isDefault: boolean } & (
  | { summary: CostSummary; error?: undefined }
  | { summary?: undefined; error: string; provider: string }
);

/**
 * Pure: the fleet's card from each agent's CostSummary, which the single agent's card shows
 * (monthCost): no arithmetic here but sums, so the two cards cannot disagree.
 */
export function fleetCost(entries: readonly FleetCostEntry[], monthStart: number): FleetCost {
  const agents: FleetCostLine[] = entries.map((e) => {
    if (e.summary === undefined)
      return {
        name: e.name,
        isDefault: e.isDefault,
        provider: e.provider,
        awakeMs: 0,
        sandboxUsd: 0,
        modelUsd: 0,
        totalUsd: 0,
        atMost: false,
        unpriced: false,
        error: e.error,
      };
    const s = e.summary;
    const modelUsd = s.modelMonthUsd ?? 0;
    return {
      name: e.name,
      isDefault: e.isDefault,
      provider: s.provider,
      awakeMs: s.awakeMs,
      sandboxUsd: s.totalUsd,
      modelUsd,
      totalUsd: s.totalUsd + modelUsd,
      atMost: s.lines.some((l) => l.atMost),
      unpriced: s.rates.length === 0,
      error: null,
    };
  });
  const sum = (f: (l: FleetCostLine) => number) => agents.reduce((n, l) => n + f(l), 0);
  const rates = new Map<string, PriceSource>();
  for (const e of entries) for (const r of e.summary?.rates ?? []) rates.set(r.source, r);
  return {
    monthStart,
    agents,
    total: {
      sandboxUsd: sum((l) => l.sandboxUsd),
      modelUsd: sum((l) => l.modelUsd),
      totalUsd: sum((l) => l.totalUsd),
    },
    incomplete: agents.some((l) => l.error !== null),
    rates: [...rates.values()],
  };
}

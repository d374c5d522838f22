import type { AwakeInterval } from "../domain/events";
import type { CostLine, PriceSource, SandboxCost, SandboxCostFacts } from "../providers/cost-types";
import { summarizeAwake } from "./awake-time";
import type { ModelSpendCard } from "./model-spend";
import { REDIS_COMMANDS_PER_HEARTBEAT, UPSTASH_PRICES } from "./pricing";

export type { CostLine };

export interface CostSummary {
  /** First instant of the calendar month (UTC) the figures cover, and how far into it we are. */
  monthStart: number;
  elapsedMs: number;
  awakeMs: number;
  sandboxesCreated: number;
  /** The configured provider's name; its module's `cost()` prices the sandbox lines. */
  provider: string;
  lines: CostLine[];
  totalUsd: number;
  /** The same month so far with the sandbox never asleep. */
  alwaysOnUsd: number;
  rates: PriceSource[];
  note: string;
  /** Model spend through the gateway; null when the agent has no model and spent nothing. */
  model?: ModelSpendCard | null;
  /** This month's model spend in dollars (the figure `model` shows in words); 0: none. */
  modelMonthUsd?: number;
}

export interface CostFacts {
  provider: string;
  /** The provider module's `cost()`; absent when it publishes no prices. */
  sandboxCost?: (facts: SandboxCostFacts) => SandboxCost;
  store: "sqlite" | "upstash" | "redis-tcp";
  vcpus: number;
  intervals: readonly AwakeInterval[];
  /** The sandbox running now, since when (null: none). */
  openSince: number | null;
  snapshotBytes: number;
  heartbeatIntervalMs: number;
  now: number;
}

/** Pure: the first instant of `now`'s calendar month, UTC. */
export function monthStartUtc(now: number): number {
  const d = new Date(now);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
}

/** What the card says for a provider whose module has no `cost()`: nothing is made up. */
function unpriced(provider: string): SandboxCost {
  return {
    lines: [{ label: `Sandbox (${provider})`, quantity: "not priced", usd: 0 }],
    alwaysOnUsd: 0,
    rates: [],
    note: `The ${provider} provider publishes no prices here.`,
  };
}

/**
 * Pure: what this month has cost so far. The provider prices its sandbox lines; the store's
 * commands are added here, and the always-on figure adds the same store traffic per
 * heartbeat around the clock to the provider's own always-on figure.
 */
export function monthCost(f: CostFacts): CostSummary {
  const monthStart = monthStartUtc(f.now);
  const elapsedMs = Math.max(1, f.now - monthStart);
  const awakeMs = summarizeAwake(f.intervals, f.openSince, f.now, elapsedMs).awakeMs;
  const created =
    f.intervals.filter((i) => i.start >= monthStart).length +
    (f.openSince !== null && f.openSince >= monthStart ? 1 : 0);
  const sandbox = f.sandboxCost
    ? f.sandboxCost({
        vcpus: f.vcpus,
        awakeMs,
        created,
        snapshotBytes: f.snapshotBytes,
        elapsedMs,
        monthMs: monthLengthMs(f.now),
      })
    : unpriced(f.provider);
  const lines: CostLine[] = [...sandbox.lines];
  const rates: PriceSource[] = [...sandbox.rates];
  let alwaysOn = sandbox.alwaysOnUsd;

  if (f.store === "upstash") {
    const perBeat = REDIS_COMMANDS_PER_HEARTBEAT * UPSTASH_PRICES.perCommand;
    const beats = awakeMs / f.heartbeatIntervalMs;
    lines.push({
      label: "Store commands",
      quantity: `~${Math.round(beats * REDIS_COMMANDS_PER_HEARTBEAT).toLocaleString("en-US")} (heartbeats)`,
      usd: beats * perBeat,
    });
    alwaysOn += (elapsedMs / f.heartbeatIntervalMs) * perBeat;
    rates.push({ asOf: UPSTASH_PRICES.asOf, source: UPSTASH_PRICES.source });
  }

  const total = lines.reduce((s, l) => s + l.usd, 0);
  return {
    monthStart,
    elapsedMs,
    awakeMs,
    sandboxesCreated: created,
    provider: f.provider,
    lines,
    totalUsd: total,
    alwaysOnUsd: alwaysOn,
    rates,
    note: sandbox.note,
  };
}

function monthLengthMs(now: number): number {
  const start = monthStartUtc(now);
  const d = new Date(start);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) - start;
}

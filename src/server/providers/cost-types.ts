/**
 * What a provider tells the dashboard's cost card about its own prices (the optional `cost()`
 * of a ProviderModule). The card adds the store's share and the total; it never knows which
 * provider it prices.
 */

export interface CostLine {
  label: string;
  /** The quantity in words ("3.2 GB-hours"). */
  quantity: string;
  usd: number;
  /** An upper bound rather than a measurement (Active CPU is not reported per sandbox here). */
  atMost?: boolean;
}

/** Where a set of list prices was read, and when: prices change. */
export interface PriceSource {
  asOf: string;
  source: string;
}

/** This calendar month so far, as the card measured it. */
export interface SandboxCostFacts {
  vcpus: number;
  /** Time a sandbox ran this month. */
  awakeMs: number;
  /** Sandboxes created this month. */
  created: number;
  /** Bytes held in snapshots now. */
  snapshotBytes: number;
  /** How far into the month we are, and how long the month is. */
  elapsedMs: number;
  monthMs: number;
}

export interface SandboxCost {
  lines: CostLine[];
  /** The same month with the sandbox never asleep (the provider's share). */
  alwaysOnUsd: number;
  rates: PriceSource[];
  /** One sentence under the card: what the prices are and what they leave out. */
  note: string;
}

import type { Price, PriceOverrides } from "../../config/model-gateway-schema";

export type { Price, PriceOverrides };

/**
 * Model prices in USD per million tokens. Dated: providers change prices, and an operator must
 * be able to see which list a bill was computed from. A model missing here (or priced
 * differently by a private deployment) is set in clawrun.json `modelGateway.prices`.
 */
export const PRICE_TABLE_DATE = "2025-08-15";

/** List prices as published by the providers on PRICE_TABLE_DATE. */
export const PRICE_TABLE: Readonly<Record<string, Price>> = {
  "gpt-5": { input: 1.25, output: 10, cachedInput: 0.125 },
  "gpt-5-mini": { input: 0.25, output: 2, cachedInput: 0.025 },
  "gpt-5-nano": { input: 0.05, output: 0.4, cachedInput: 0.005 },
  "gpt-4.1": { input: 2, output: 8, cachedInput: 0.5 },
  "gpt-4.1-mini": { input: 0.4, output: 1.6, cachedInput: 0.1 },
  "gpt-4.1-nano": { input: 0.1, output: 0.4, cachedInput: 0.025 },
  "gpt-4o": { input: 2.5, output: 10, cachedInput: 1.25 },
  "gpt-4o-mini": { input: 0.15, output: 0.6, cachedInput: 0.075 },
  "claude-opus-4-1": { input: 15, output: 75, cachedInput: 1.5, cacheWrite: 18.75 },
  "claude-opus-4": { input: 15, output: 75, cachedInput: 1.5, cacheWrite: 18.75 },
  "claude-sonnet-4": { input: 3, output: 15, cachedInput: 0.3, cacheWrite: 3.75 },
  "claude-3-7-sonnet": { input: 3, output: 15, cachedInput: 0.3, cacheWrite: 3.75 },
  "claude-3-5-haiku": { input: 0.8, output: 4, cachedInput: 0.08, cacheWrite: 1 },
};

/**
 * Pure: the price of `model`, overrides first. Matches the exact id, then the id without a
 * gateway prefix ("openai/gpt-4o" on Vercel AI Gateway), then the longest table key that the id
 * extends with "-" (dated snapshots such as "claude-sonnet-4-20250514"). Null: unpriced.
 */
export function priceFor(
  model: string,
  overrides: PriceOverrides = {},
  table: Readonly<Record<string, Price>> = PRICE_TABLE,
): Price | null {
  const candidates = [model];
  const slash = model.lastIndexOf("/");
  if (slash >= 0) candidates.push(model.slice(slash + 1));
  // Exact ids everywhere first: an override "gpt-4o" must not swallow the table's "gpt-4o-mini".
  for (const source of [overrides, table]) {
    for (const id of candidates) {
      const exact = source[id];
      if (exact) return exact;
    }
  }
  for (const source of [overrides, table]) {
    for (const id of candidates) {
      let best: string | null = null;
      for (const key of Object.keys(source)) {
        if (id.startsWith(`${key}-`) && (best === null || key.length > best.length)) best = key;
      }
      if (best !== null) return source[best] ?? null;
    }
  }
  return null;
}

import { z } from "zod";

/**
 * clawrun.json `modelGateway`: the agent's model budget and price overrides. Kept in config
 * (not in the gateway) so the config schema depends on nothing of the server.
 */
export const budgetSchema = z.strictObject({
  /** USD per UTC day. */
  daily: z.number({ error: "expected a daily cap in USD" }).positive().optional(),
  /** USD per UTC calendar month. */
  monthly: z.number({ error: "expected a monthly cap in USD" }).positive().optional(),
  currency: z.literal("USD", { error: 'expected "USD" (prices are in US dollars)' }).default("USD"),
});
export type Budget = z.output<typeof budgetSchema>;

export const priceSchema = z.strictObject({
  /** Uncached input (prompt) tokens. */
  input: z.number({ error: "expected USD per million input tokens" }).nonnegative(),
  /** Output (completion) tokens, reasoning included. */
  output: z.number({ error: "expected USD per million output tokens" }).nonnegative(),
  /** Input tokens served from the provider's prompt cache; defaults to `input`. */
  cachedInput: z.number().nonnegative().optional(),
  /** Input tokens written to the cache (Anthropic); defaults to `input`. */
  cacheWrite: z.number().nonnegative().optional(),
});
export type Price = z.output<typeof priceSchema>;

export const priceOverridesSchema = z.record(
  z.string().min(1, { error: "expected a model id" }),
  priceSchema,
);
export type PriceOverrides = z.output<typeof priceOverridesSchema>;

export const modelGatewaySchema = z.strictObject({
  budget: budgetSchema.optional(),
  /** USD per million tokens, for models missing from ClawRun's table or priced differently. */
  prices: priceOverridesSchema.default({}),
  /** Forward calls to unpriced models (billed $0) instead of refusing them. */
  allowUnpriced: z.boolean().default(false),
  /** How long the model server may take to start answering, in ms. */
  timeoutMs: z.number().int().positive().default(120_000),
});

import type { Price } from "./prices";

/**
 * Token counts of one call, normalised across API shapes. `input` excludes cached tokens:
 * OpenAI reports prompt_tokens including cached ones, Anthropic reports them apart.
 */
export interface Usage {
  input: number;
  output: number;
  cachedInput: number;
  cacheWrite: number;
}

export const NO_USAGE: Usage = { input: 0, output: 0, cachedInput: 0, cacheWrite: 0 };

export function totalTokens(u: Usage): number {
  return u.input + u.output + u.cachedInput + u.cacheWrite;
}

/**
 * Pure: the cost of `usage` in micro-USD (integers, so stores can add them atomically).
 * tokens × USD-per-million is exactly micro-USD; rounded up so a bill never undercounts.
 */
export function costMicros(usage: Usage, price: Price): number {
  const micros =
    usage.input * price.input +
    usage.output * price.output +
    usage.cachedInput * (price.cachedInput ?? price.input) +
    usage.cacheWrite * (price.cacheWrite ?? price.input);
  // Float noise (0.1 * 3 = 0.30000000000000004) must not add a micro-dollar.
  return Math.ceil(Math.round(micros * 1e6) / 1e6);
}

/** When the request names no output limit: a generous ceiling, so the estimate errs high. */
export const DEFAULT_MAX_OUTPUT_TOKENS = 4_096;

/** Roughly 4 bytes of JSON per token; JSON punctuation makes this an over-estimate. */
const BYTES_PER_TOKEN = 4;

/**
 * Pure: what to reserve before forwarding a call, in micro-USD: every request byte as an
 * uncached input token and the full output limit. Settling later refunds the difference.
 */
export function reservationMicros(
  requestBytes: number,
  maxOutputTokens: number | null,
  price: Price,
): number {
  const input = Math.ceil(requestBytes / BYTES_PER_TOKEN);
  const output = maxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS;
  return costMicros({ ...NO_USAGE, input, output }, price);
}

/** The output limit a request asked for, whichever API spelled it. */
export function maxOutputTokensOf(body: Record<string, unknown>): number | null {
  for (const key of ["max_completion_tokens", "max_tokens", "max_output_tokens"]) {
    const v = body[key];
    if (typeof v === "number" && Number.isInteger(v) && v > 0) return v;
  }
  return null;
}

export function formatUsd(micros: number): string {
  const usd = micros / 1e6;
  return `$${usd >= 1 ? usd.toFixed(2) : usd.toFixed(4).replace(/0+$/, "").replace(/\.$/, "")}`;
}

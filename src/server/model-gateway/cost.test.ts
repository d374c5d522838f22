import { describe, expect, it } from "vitest";
import { costMicros, formatUsd, maxOutputTokensOf, NO_USAGE, reservationMicros } from "./cost";
import { priceFor } from "./prices";

describe("priceFor", () => {
  it.each([
    ["gpt-4o", { input: 2.5, output: 10, cachedInput: 1.25 }],
    ["openai/gpt-4o-mini", { input: 0.15, output: 0.6, cachedInput: 0.075 }],
    ["claude-sonnet-4-20250514", { input: 3, output: 15, cachedInput: 0.3, cacheWrite: 3.75 }],
    [
      "anthropic/claude-3-5-haiku-latest",
      { input: 0.8, output: 4, cachedInput: 0.08, cacheWrite: 1 },
    ],
    // Longest key wins: gpt-4.1-mini, not gpt-4.1.
    ["gpt-4.1-mini-2025-04-14", { input: 0.4, output: 1.6, cachedInput: 0.1 }],
    ["my-private-llama", null],
    ["gpt-4o2", null],
  ])("%s", (model, price) => {
    expect(priceFor(model)).toEqual(price);
  });

  it("prefers an override from clawrun.json, for listed and private models", () => {
    const overrides = { "gpt-4o": { input: 1, output: 2 }, "my-llama": { input: 0, output: 0 } };
    expect(priceFor("gpt-4o", overrides)).toEqual({ input: 1, output: 2 });
    expect(priceFor("my-llama", overrides)).toEqual({ input: 0, output: 0 });
    expect(priceFor("gpt-4o-mini", overrides)?.input).toBe(0.15);
  });
});

describe("costMicros", () => {
  const price = { input: 3, output: 15, cachedInput: 0.3, cacheWrite: 3.75 };
  it.each([
    ["nothing", NO_USAGE, 0],
    ["1M input", { ...NO_USAGE, input: 1_000_000 }, 3_000_000],
    ["1k output", { ...NO_USAGE, output: 1_000 }, 15_000],
    ["cached read", { ...NO_USAGE, cachedInput: 1_000 }, 300],
    ["cache write", { ...NO_USAGE, cacheWrite: 1_000 }, 3_750],
    ["rounds up a fraction", { ...NO_USAGE, cachedInput: 1 }, 1],
    ["mixed", { input: 100, output: 10, cachedInput: 10, cacheWrite: 0 }, 300 + 150 + 3],
  ])("%s", (_name, usage, micros) => {
    expect(costMicros(usage, price)).toBe(micros);
  });

  it("charges the input price for cache tokens when no cache price is listed", () => {
    expect(
      costMicros({ ...NO_USAGE, cachedInput: 10, cacheWrite: 10 }, { input: 1, output: 2 }),
    ).toBe(20);
  });

  it("does not add a micro-dollar for float noise", () => {
    expect(costMicros({ ...NO_USAGE, input: 3 }, { input: 0.1, output: 0 })).toBe(1);
    expect(costMicros({ ...NO_USAGE, input: 30 }, { input: 0.1, output: 0 })).toBe(3);
  });
});

describe("reservation", () => {
  const price = { input: 2, output: 10 };
  it.each([
    ["request bytes / 4 as input, max_tokens as output", 4_000, 100, 1_000 * 2 + 100 * 10],
    ["no output limit: the default ceiling", 4, null, 2 + 4_096 * 10],
    ["rounds a partial token up", 5, 1, 2 * 2 + 10],
  ])("%s", (_name, bytes, max, micros) => {
    expect(reservationMicros(bytes, max, price)).toBe(micros);
  });

  it.each([
    [{ max_tokens: 50 }, 50],
    [{ max_completion_tokens: 70, max_tokens: 50 }, 70],
    [{ max_output_tokens: 9 }, 9],
    [{ max_tokens: "50" }, null],
    [{ max_tokens: 0 }, null],
    [{ max_tokens: 1.5 }, null],
    [{}, null],
  ])("max output of %j is %s", (body, max) => {
    expect(maxOutputTokensOf(body)).toBe(max);
  });
});

describe("formatUsd", () => {
  it.each([
    [2_000_000, "$2.00"],
    [20_500_000, "$20.50"],
    [12_300, "$0.0123"],
    [500_000, "$0.5"],
    [0, "$0"],
  ])("%i micro-USD is %s", (micros, text) => {
    expect(formatUsd(micros)).toBe(text);
  });
});

import { describe, expect, it } from "vitest";
import { usageView } from "../model-gateway/usage-view";
import { capReached, formatModelUsd, modelSpendCard } from "./model-spend";

const NOW = Date.parse("2026-12-02T12:00:00Z");
const spend = (costMicros: number, calls: number) => ({
  costMicros,
  calls,
  inputTokens: 0,
  outputTokens: 0,
  cachedInputTokens: 0,
});
const budget = { daily: 2, monthly: 20, currency: "USD" as const };

function view(
  dayMicros: number,
  monthMicros: number,
  raiseMicros = 0,
  reached: { day?: number; month?: number } = {},
) {
  return usageView(
    {
      day: {
        totalMicros: dayMicros,
        raiseMicros,
        reachedMicros: reached.day ?? null,
        models: { "gpt-4o": spend(dayMicros, 3) },
        conversations: { "telegram:42": { costMicros: dayMicros, calls: 3 } },
      },
      month: {
        totalMicros: monthMicros,
        reachedMicros: reached.month ?? null,
        models: { "gpt-4o": spend(monthMicros - 1_000, 9), "gpt-4o-mini": spend(1_000, 1) },
        conversations: {
          "telegram:42": { costMicros: monthMicros - 1_000, calls: 9 },
          "": { costMicros: 1_000, calls: 1 },
        },
      },
    },
    budget,
    NOW,
  );
}

describe("formatModelUsd", () => {
  it.each([
    [0, "$0.00"],
    [0.000_25, "$0.0003"],
    [0.5, "$0.50"],
    [12.345, "$12.35"],
  ])("%s → %s", (usd, text) => expect(formatModelUsd(usd)).toBe(text));
});

describe("capReached (the store's mark of the cap a refusal hit)", () => {
  it.each([
    ["no refusal", 0, {}, null],
    ["refused today at today's cap", 0, { day: 2_000_000 }, "daily"],
    [
      "refused, then raised (the cap is no longer the one refused at)",
      1_000_000,
      { day: 2_000_000 },
      null,
    ],
    ["raised, then refused again at the new cap", 1_000_000, { day: 3_000_000 }, "daily"],
    ["the month's cap, even after a raise of today's", 1_000_000, { month: 20_000_000 }, "monthly"],
    ["a mark at another cap (the budget was changed since)", 0, { month: 10_000_000 }, null],
  ] as const)("%s → %s", (_name, raise, reached, expected) => {
    expect(capReached(view(1_000_000, 5_000_000, raise, reached))).toBe(expected);
  });
});

describe("modelSpendCard", () => {
  it("shows spend against the caps, per conversation and per model, with no banner below 80 %", () => {
    const card = modelSpendCard(view(1_000_000, 5_000_000));
    expect(card.today).toBe("$1.00 of $2.00 (50 %)");
    expect(card.month).toBe("$5.00 of $20.00 (25 %)");
    expect(card.banner).toBeNull();
    expect(card.byConversation).toEqual([
      { label: "telegram · 42", today: "$1.00", month: "$5.00", calls: "9" },
      { label: "unattributed", today: "$0.00", month: "$0.0010", calls: "1" },
    ]);
    expect(card.byModel.map((r) => [r.label, r.today, r.month])).toEqual([
      ["gpt-4o", "$1.00", "$5.00"],
      ["gpt-4o-mini", "$0.00", "$0.0010"],
    ]);
    expect(card.raiseStepUsd).toBe(2);
  });

  it("warns at 80 % of a cap", () => {
    const card = modelSpendCard(view(1_700_000, 5_000_000));
    expect(card.banner).toEqual({
      kind: "warning",
      text: "Model spend is at $1.70, over 80 % of today's budget of $2.00.",
    });
  });

  it("says a different thing once a cap refused calls, and when it resets", () => {
    const hit = view(1_990_000, 5_000_000, 0, { day: 2_000_000 });
    expect(modelSpendCard(hit).banner).toEqual({
      kind: "reached",
      text: "The daily model budget of $2.00 is reached: the agent's model calls are refused until 00:00 UTC.",
    });
    const month = view(0, 19_990_000, 0, { month: 20_000_000 });
    expect(modelSpendCard(month).banner?.text).toBe(
      "The monthly model budget of $20.00 is reached: the agent's model calls are refused until 2027-01-01 00:00 UTC.",
    );
  });

  it("offers to raise today's cap by the configured daily cap, whatever was raised already", () => {
    expect(modelSpendCard(view(2_000_000, 5_000_000, 2_000_000)).raiseStepUsd).toBe(2);
  });
});

import { describe, expect, it } from "vitest";
import type { LifecycleEvent } from "../domain/events";
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

function view(dayMicros: number, monthMicros: number, raiseMicros = 0) {
  return usageView(
    {
      day: {
        totalMicros: dayMicros,
        raiseMicros,
        reachedMicros: null,
        models: { "gpt-4o": spend(dayMicros, 3) },
        conversations: { "telegram:42": { costMicros: dayMicros, calls: 3 } },
      },
      month: {
        totalMicros: monthMicros,
        reachedMicros: null,
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

let ids = 0;
function event(at: string, type: string, period?: string): LifecycleEvent {
  return {
    id: String(++ids),
    at: Date.parse(at),
    type,
    level: "info",
    sandboxId: null,
    message: "",
    details: period ? { period } : {},
  };
}

describe("formatModelUsd", () => {
  it.each([
    [0, "$0.00"],
    [0.000_25, "$0.0003"],
    [0.5, "$0.50"],
    [12.345, "$12.35"],
  ])("%s → %s", (usd, text) => expect(formatModelUsd(usd)).toBe(text));
});

describe("capReached (events newest first)", () => {
  const v = view(1_000_000, 5_000_000);
  it.each([
    ["no events", [], null],
    ["refused today", [event("2026-12-02T10:00:00Z", "model.budget-reached", "daily")], "daily"],
    [
      "refused, then raised",
      [
        event("2026-12-02T11:00:00Z", "model.budget-raised"),
        event("2026-12-02T10:00:00Z", "model.budget-reached", "daily"),
      ],
      null,
    ],
    [
      "raised, then refused again",
      [
        event("2026-12-02T11:30:00Z", "model.budget-reached", "daily"),
        event("2026-12-02T11:00:00Z", "model.budget-raised"),
      ],
      "daily",
    ],
    ["refused yesterday", [event("2026-12-01T23:00:00Z", "model.budget-reached", "daily")], null],
    [
      "the month's cap, even after a raise of today's",
      [
        event("2026-12-02T11:00:00Z", "model.budget-raised"),
        event("2026-12-01T09:00:00Z", "model.budget-reached", "monthly"),
      ],
      "monthly",
    ],
    ["last month's", [event("2026-11-30T09:00:00Z", "model.budget-reached", "monthly")], null],
  ] as const)("%s → %s", (_name, events, expected) => {
    expect(capReached(events, v)).toBe(expected);
  });
});

describe("modelSpendCard", () => {
  it("shows spend against the caps, per conversation and per model, with no banner below 80 %", () => {
    const card = modelSpendCard(view(1_000_000, 5_000_000), []);
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
    const card = modelSpendCard(view(1_700_000, 5_000_000), []);
    expect(card.banner).toEqual({
      kind: "warning",
      text: "Model spend is at $1.70, over 80 % of today's budget of $2.00.",
    });
  });

  it("says a different thing once a cap refused calls, and when it resets", () => {
    const hit = [event("2026-12-02T11:00:00Z", "model.budget-reached", "daily")];
    expect(modelSpendCard(view(1_990_000, 5_000_000), hit).banner).toEqual({
      kind: "reached",
      text: "The daily model budget of $2.00 is reached: the agent's model calls are refused until 00:00 UTC.",
    });
    const month = [event("2026-12-02T11:00:00Z", "model.budget-reached", "monthly")];
    expect(modelSpendCard(view(0, 19_990_000), month).banner?.text).toBe(
      "The monthly model budget of $20.00 is reached: the agent's model calls are refused until 2027-01-01 00:00 UTC.",
    );
  });

  it("offers to raise today's cap by the configured daily cap, whatever was raised already", () => {
    expect(modelSpendCard(view(2_000_000, 5_000_000, 2_000_000), []).raiseStepUsd).toBe(2);
  });
});

import { describe, expect, it } from "vitest";
import { formatUsage } from "../../cli/commands/usage";
import { usageView } from "./usage-view";

const NOW = Date.parse("2026-12-02T12:00:00Z");
const spend = (costMicros: number, calls: number) => ({
  costMicros,
  calls,
  inputTokens: 10 * calls,
  outputTokens: 2 * calls,
  cachedInputTokens: 0,
});

describe("usageView", () => {
  const totals = {
    day: {
      totalMicros: 1_700_000,
      raiseMicros: 0,
      reachedMicros: null,
      models: { a: spend(1_000_000, 2), b: spend(700_000, 1) },
      conversations: {
        "telegram:42": { costMicros: 1_200_000, calls: 2 },
        "": { costMicros: 500_000, calls: 1 },
      },
    },
    month: {
      totalMicros: 5_000_000,
      reachedMicros: null,
      models: { a: spend(4_000_000, 9), b: spend(1_000_000, 3) },
      conversations: {
        "slack:C1:1700.1": { costMicros: 4_500_000, calls: 11 },
        "": { costMicros: 500_000, calls: 1 },
      },
    },
  };

  it.each([
    ["no budget", undefined, null, null, false],
    ["daily 2: 85 % is a warning", { daily: 2, currency: "USD" as const }, 2, null, true],
    ["daily 10, monthly 20", { daily: 10, monthly: 20, currency: "USD" as const }, 10, 20, false],
  ])("%s", (_name, budget, dayCap, monthCap, warning) => {
    const v = usageView(totals, budget, NOW);
    expect(v.today).toMatchObject({ day: "2026-12-02", spentUsd: 1.7, capUsd: dayCap, warning });
    expect(v.month).toMatchObject({ month: "2026-12", spentUsd: 5, capUsd: monthCap });
    expect(v.today.resetsAt).toBe("2026-12-03T00:00:00.000Z");
    expect(v.today.models.map((m) => m.model)).toEqual(["a", "b"]);
    expect(v.today.conversations).toEqual([
      { channel: "telegram", conversation: "42", costUsd: 1.2, calls: 2 },
      { channel: null, conversation: null, costUsd: 0.5, calls: 1 },
    ]);
    // A conversation id may itself hold ":" (a Slack thread): only the channel is split off.
    expect(v.month.conversations[0]).toMatchObject({ channel: "slack", conversation: "C1:1700.1" });
  });

  it("adds today's raise to the cap", () => {
    const v = usageView(
      { ...totals, day: { ...totals.day, raiseMicros: 3_000_000 } },
      { daily: 2, currency: "USD" },
      NOW,
    );
    expect(v.today).toMatchObject({ capUsd: 5, raisedUsd: 3, warning: false });
  });

  it("prints for a terminal", () => {
    // As the CLI gets it: JSON over HTTP.
    const lines = formatUsage(
      JSON.parse(
        JSON.stringify(usageView(totals, { daily: 2, monthly: 20, currency: "USD" }, NOW)),
      ),
    );
    expect(lines[0]).toBe(
      "today 2026-12-02: $1.70 of $2.00  ⚠ over 80 %  (resets 2026-12-03T00:00:00.000Z)",
    );
    expect(lines[1]).toBe("month 2026-12: $5.00 of $20.00  (resets 2027-01-01T00:00:00.000Z)");
    expect(lines).toContain("  a: $4.00, 9 calls, 90 in / 18 out tokens");
    const month = lines.indexOf("per conversation, this month:");
    expect(lines.slice(month + 1, month + 3)).toEqual([
      "  slack C1:1700.1: $4.50, 11 calls",
      "  (unattributed): $0.50, 1 calls",
    ]);
    expect(lines).toContain("per conversation, today:");
  });
});

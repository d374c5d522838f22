import { describe, expect, it } from "vitest";
import type { SandboxCost, SandboxCostFacts } from "../providers/cost-types";
import { type CostFacts, monthCost, monthStartUtc } from "./cost";
import { UPSTASH_PRICES } from "./pricing";

const HOUR = 3_600_000;
const START = Date.UTC(2026, 10, 1); // 1 Nov 2026 (30 days)
const NOW = START + 10 * 24 * HOUR; // ten days in

/** A made-up provider's prices: $1 per awake hour, $100 always on; records what it was asked. */
function pricedProvider() {
  const asked: SandboxCostFacts[] = [];
  const cost = (f: SandboxCostFacts): SandboxCost => {
    asked.push(f);
    return {
      lines: [{ label: "Sandbox hours", quantity: "some", usd: f.awakeMs / HOUR }],
      alwaysOnUsd: 100,
      rates: [{ asOf: "2026-01-01", source: "https://example.test/prices" }],
      note: "made-up prices",
    };
  };
  return { asked, cost };
}

const facts = (over: Partial<CostFacts> = {}): CostFacts => ({
  provider: "test",
  store: "upstash",
  vcpus: 2,
  intervals: [],
  openSince: null,
  snapshotBytes: 0,
  heartbeatIntervalMs: 60_000,
  now: NOW,
  ...over,
});

describe("monthCost", () => {
  it("starts the month at midnight UTC on the 1st", () => {
    expect(monthStartUtc(Date.UTC(2026, 11, 31, 23, 59))).toBe(Date.UTC(2026, 11, 1));
  });

  it("hands the provider this month's awake time and creations, and adds the store's commands", () => {
    // Two hours awake this month, one interval from last month that must not count.
    const p = pricedProvider();
    const c = monthCost(
      facts({
        sandboxCost: p.cost,
        snapshotBytes: 123,
        intervals: [
          { sandboxId: "old", start: START - 5 * HOUR, end: START - 4 * HOUR },
          { sandboxId: "a", start: START + HOUR, end: START + 2 * HOUR },
        ],
        openSince: NOW - HOUR,
      }),
    );
    expect(c.awakeMs).toBe(2 * HOUR);
    expect(c.sandboxesCreated).toBe(2);
    expect(p.asked).toEqual([
      {
        vcpus: 2,
        awakeMs: 2 * HOUR,
        created: 2,
        snapshotBytes: 123,
        elapsedMs: 10 * 24 * HOUR,
        monthMs: 30 * 24 * HOUR,
      },
    ]);
    expect(c.lines.map((l) => l.label)).toEqual(["Sandbox hours", "Store commands"]);
    const commands = ((2 * HOUR) / 60_000) * 5;
    expect(c.lines[1]?.usd).toBeCloseTo(commands * UPSTASH_PRICES.perCommand, 12);
    expect(c.lines[1]?.quantity).toBe("~600 (heartbeats)");
    expect(c.totalUsd).toBeCloseTo(2 + commands * UPSTASH_PRICES.perCommand, 12);
    expect(c.rates.map((r) => r.source)).toEqual([
      "https://example.test/prices",
      UPSTASH_PRICES.source,
    ]);
    expect(c.note).toBe("made-up prices");
    expect(c.provider).toBe("test");
  });

  it("compares with the same month always on: the provider's figure plus heartbeats around the clock", () => {
    const c = monthCost(facts({ sandboxCost: pricedProvider().cost }));
    const hours = 10 * 24;
    const expected = 100 + ((hours * HOUR) / 60_000) * 5 * UPSTASH_PRICES.perCommand;
    expect(c.alwaysOnUsd).toBeCloseTo(expected, 10);
  });

  it("adds nothing for SQLite", () => {
    const c = monthCost(
      facts({
        store: "sqlite",
        sandboxCost: pricedProvider().cost,
        intervals: [{ sandboxId: "a", start: START, end: NOW }],
      }),
    );
    expect(c.lines.map((l) => l.label)).toEqual(["Sandbox hours"]);
    expect(c.alwaysOnUsd).toBe(100);
    expect(c.awakeMs).toBe(NOW - START);
  });

  it("prices nothing for a provider without cost(), and says so", () => {
    const c = monthCost(facts({ store: "sqlite", provider: "elsewhere" }));
    expect(c.lines).toEqual([{ label: "Sandbox (elsewhere)", quantity: "not priced", usd: 0 }]);
    expect(c.totalUsd).toBe(0);
    expect(c.alwaysOnUsd).toBe(0);
    expect(c.rates).toEqual([]);
    expect(c.note).toBe("The elsewhere provider publishes no prices here.");
  });
});

import { describe, expect, it } from "vitest";
import { type CostSummary, monthCost } from "./cost";
import { fleetCost } from "./fleet-cost";

const HOUR = 60 * 60_000;
const NOW = Date.UTC(2026, 5, 15, 12);
const priced = (awakeHours: number, modelMonthUsd: number): CostSummary => ({
  ...monthCost({
    provider: "test",
    // A provider's cost(): $1 per awake hour, the line an upper bound like Active CPU.
    sandboxCost: (f) => ({
      lines: [{ label: "CPU", quantity: "", usd: f.awakeMs / HOUR, atMost: true }],
      alwaysOnUsd: 0,
      rates: [{ asOf: "2026-01-01", source: "https://example.test/prices" }],
      note: "",
    }),
    store: "sqlite",
    vcpus: 2,
    intervals: [{ sandboxId: "s", start: NOW - awakeHours * HOUR, end: NOW }],
    openSince: null,
    snapshotBytes: 0,
    heartbeatIntervalMs: 60_000,
    now: NOW,
  }),
  modelMonthUsd,
});

describe("fleetCost (the fleet's cost card)", () => {
  it("takes each agent's own card total, adds its model spend, and sums the fleet", () => {
    const card = fleetCost(
      [
        { name: "a", isDefault: true, summary: priced(3, 0) },
        { name: "b", isDefault: false, summary: priced(0.5, 2.25) },
      ],
      Date.UTC(2026, 5, 1),
    );
    expect(card.agents.map((l) => [l.name, l.sandboxUsd, l.modelUsd, l.totalUsd])).toEqual([
      ["a", 3, 0, 3],
      ["b", 0.5, 2.25, 2.75],
    ]);
    expect(card.total).toEqual({ sandboxUsd: 3.5, modelUsd: 2.25, totalUsd: 5.75 });
    expect(card.agents.every((l) => l.atMost && !l.unpriced)).toBe(true);
    expect(card.rates).toEqual([{ asOf: "2026-01-01", source: "https://example.test/prices" }]);
    expect(card.incomplete).toBe(false);
  });

  it("keeps an agent whose figures failed as a line with its error, out of the total", () => {
    const card = fleetCost(
      [
        { name: "a", isDefault: true, summary: priced(1, 1) },
        { name: "b", isDefault: false, provider: "vercel", error: "store timed out" },
      ],
      0,
    );
    expect(card.agents[1]).toMatchObject({ name: "b", error: "store timed out", totalUsd: 0 });
    expect(card.total.totalUsd).toBe(2);
    expect(card.incomplete).toBe(true);
  });

  it("marks a provider without prices as unpriced", () => {
    const summary = monthCost({
      provider: "local",
      store: "sqlite",
      vcpus: 2,
      intervals: [],
      openSince: null,
      snapshotBytes: 0,
      heartbeatIntervalMs: 60_000,
      now: NOW,
    });
    const card = fleetCost([{ name: "a", isDefault: true, summary }], 0);
    expect(card.agents[0]).toMatchObject({ unpriced: true, sandboxUsd: 0, modelUsd: 0 });
  });
});

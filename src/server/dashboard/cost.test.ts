import { describe, expect, it } from "vitest";
import { type CostFacts, monthCost, monthStartUtc } from "./cost";
import { VERCEL_SANDBOX_PRICES as P, UPSTASH_PRICES } from "./pricing";

const HOUR = 3_600_000;
const START = Date.UTC(2026, 10, 1); // 1 Nov 2026 (30 days)
const NOW = START + 10 * 24 * HOUR; // ten days in

const facts = (over: Partial<CostFacts> = {}): CostFacts => ({
  provider: "vercel",
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

  it("prices awake hours on Vercel: memory for 2 GB per vCPU, CPU as an upper bound", () => {
    // Two hours awake this month, one interval from last month that must not count.
    const c = monthCost(
      facts({
        intervals: [
          { sandboxId: "old", start: START - 5 * HOUR, end: START - 4 * HOUR },
          { sandboxId: "a", start: START + HOUR, end: START + 2 * HOUR },
        ],
        openSince: NOW - HOUR,
      }),
    );
    expect(c.awakeMs).toBe(2 * HOUR);
    expect(c.sandboxesCreated).toBe(2);
    const line = (label: string) => c.lines.find((l) => l.label === label);
    expect(line("Memory")?.usd).toBeCloseTo(2 * 4 * P.memoryPerGbHour, 10);
    expect(line("Active CPU")?.usd).toBeCloseTo(2 * 2 * P.activeCpuPerHour, 10);
    expect(line("Active CPU")?.atMost).toBe(true);
    expect(line("Sandbox creations")?.usd).toBeCloseTo(2 * P.perCreation, 12);
    const commands = ((2 * HOUR) / 60_000) * 5;
    expect(line("Store commands")?.usd).toBeCloseTo(commands * UPSTASH_PRICES.perCommand, 12);
    expect(c.totalUsd).toBeCloseTo(
      c.lines.reduce((s, l) => s + l.usd, 0),
      12,
    );
  });

  it("compares with the same month always on: memory and heartbeats around the clock", () => {
    const c = monthCost(
      facts({ intervals: [{ sandboxId: "a", start: START, end: START + HOUR }] }),
    );
    const hours = 10 * 24;
    const expected =
      1 * 2 * P.activeCpuPerHour + // the same CPU work
      hours * 4 * P.memoryPerGbHour +
      Math.ceil((hours * HOUR) / P.maxRunMs) * P.perCreation +
      ((hours * HOUR) / 60_000) * 5 * UPSTASH_PRICES.perCommand;
    expect(c.alwaysOnUsd).toBeCloseTo(expected, 10);
    expect(c.alwaysOnUsd).toBeGreaterThan(c.totalUsd * 10);
  });

  it("charges snapshot storage for the part of the month elapsed", () => {
    const c = monthCost(facts({ snapshotBytes: 2 * 1024 ** 3 }));
    const storage = c.lines.find((l) => l.label === "Snapshot storage");
    expect(storage?.usd).toBeCloseTo(2 * P.storagePerGbMonth * (10 / 30), 10);
  });

  it("costs nothing on the local provider with SQLite", () => {
    const c = monthCost(
      facts({
        provider: "local",
        store: "sqlite",
        intervals: [{ sandboxId: "a", start: START, end: NOW }],
      }),
    );
    expect(c.totalUsd).toBe(0);
    expect(c.alwaysOnUsd).toBe(0);
    expect(c.awakeMs).toBe(NOW - START);
    expect(c.rates).toEqual([]);
  });
});

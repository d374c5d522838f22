import { describe, expect, it } from "vitest";
import type { SandboxCostFacts } from "../cost-types";
import { vercelProvider } from ".";
import { vercelSandboxCost } from "./cost";
import { VERCEL_SANDBOX_PRICES as P } from "./pricing";

const HOUR = 3_600_000;
const MONTH = 30 * 24 * HOUR; // November
const ELAPSED = 10 * 24 * HOUR; // ten days in

const facts = (over: Partial<SandboxCostFacts> = {}): SandboxCostFacts => ({
  vcpus: 2,
  awakeMs: 0,
  created: 0,
  snapshotBytes: 0,
  elapsedMs: ELAPSED,
  monthMs: MONTH,
  ...over,
});

describe("Vercel Sandbox cost", () => {
  it("is the module's cost()", () => {
    expect(vercelProvider.cost).toBe(vercelSandboxCost);
  });

  it("prices awake hours: memory for 2 GB per vCPU, CPU as an upper bound", () => {
    const c = vercelSandboxCost(facts({ awakeMs: 2 * HOUR, created: 2 }));
    const line = (label: string) => c.lines.find((l) => l.label === label);
    expect(line("Memory")?.usd).toBeCloseTo(2 * 4 * P.memoryPerGbHour, 10);
    expect(line("Memory")?.quantity).toBe("8.00 GB-hours (4 GB)");
    expect(line("Active CPU")?.usd).toBeCloseTo(2 * 2 * P.activeCpuPerHour, 10);
    expect(line("Active CPU")?.atMost).toBe(true);
    expect(line("Sandbox creations")?.usd).toBeCloseTo(2 * P.perCreation, 12);
    expect(c.rates).toEqual([{ asOf: P.asOf, source: P.source }]);
    expect(c.note).toMatch(/^List prices \(Pro\); Hobby includes/);
  });

  it("compares with the same month always on: memory around the clock, the same CPU work", () => {
    const c = vercelSandboxCost(facts({ awakeMs: HOUR, created: 1 }));
    const hours = 10 * 24;
    const expected =
      1 * 2 * P.activeCpuPerHour + // the same CPU work
      hours * 4 * P.memoryPerGbHour +
      Math.ceil((hours * HOUR) / P.maxRunMs) * P.perCreation;
    expect(c.alwaysOnUsd).toBeCloseTo(expected, 10);
    const total = c.lines.reduce((s, l) => s + l.usd, 0);
    expect(c.alwaysOnUsd).toBeGreaterThan(total * 10);
  });

  it("charges snapshot storage for the part of the month elapsed", () => {
    const c = vercelSandboxCost(facts({ snapshotBytes: 2 * 1024 ** 3 }));
    const storage = c.lines.find((l) => l.label === "Snapshot storage");
    expect(storage?.usd).toBeCloseTo(2 * P.storagePerGbMonth * (10 / 30), 10);
    expect(storage?.quantity).toBe("2.000 GB");
  });
});

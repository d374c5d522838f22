import { describe, expect, it } from "vitest";
import type { FleetRowView } from "./api-schemas";
import { formatFleet } from "./format-fleet";

const NOW = Date.UTC(2026, 11, 1, 13, 20, 0);
const MIN = 60_000;

const row = (r: Partial<FleetRowView> & { name: string }): FleetRowView => ({
  isDefault: false,
  status: "sleeping",
  since: NOW - 30 * MIN,
  error: null,
  activeUntil: null,
  pending: 0,
  failed: 0,
  awakeTodayMs: 0,
  ...r,
});

describe("formatFleet", () => {
  it("aligns one row per agent, marks the default, and tells when a running one sleeps", () => {
    const lines = formatFleet(
      [
        row({
          name: "clawrun",
          isDefault: true,
          status: "running",
          since: NOW - 5 * MIN,
          activeUntil: NOW + 4 * MIN,
          awakeTodayMs: 90 * MIN,
        }),
        row({ name: "team", pending: 3, failed: 1, awakeTodayMs: 12 * MIN }),
        row({ name: "ops", status: "uninitialized", since: 0 }),
      ],
      NOW,
    );
    expect(lines).toEqual([
      "agent              status         since                                pending  failed  awake today",
      "clawrun (default)  running        13:15:00 (5 min) · sleeps in ~4 min  0        0       1.5 h",
      "team               sleeping       12:50:00 (30 min)                    3        1       12 min",
      "ops                uninitialized  never started                        0        0       0 s",
      "(clawrun status --agent <name>: one agent in detail)",
    ]);
  });

  it("shows a running agent without a forecast (no heartbeat yet) by its start only", () => {
    const [, line] = formatFleet([row({ name: "a", status: "running", since: NOW - 10_000 })], NOW);
    expect(line).toContain("13:19:50 (10 s)");
    expect(line).not.toContain("sleeps in");
  });

  it("names a failed agent's error under the table", () => {
    const lines = formatFleet(
      [row({ name: "a", isDefault: true }), row({ name: "b", status: "failed", error: "boom" })],
      NOW,
    );
    expect(lines).toContain("b: boom");
    expect(lines.filter((l) => l.includes("boom"))).toHaveLength(1);
  });
});

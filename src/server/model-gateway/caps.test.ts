import { describe, expect, it } from "vitest";
import { budgetSchema, capLimits, capMessage, crossedWarnings, decideCap } from "./caps";
import { nextUtcDay, nextUtcMonth, utcDay, utcMonth } from "./periods";
import { refusal } from "./refusal";

const NOW = Date.parse("2026-12-02T12:00:00Z");
const M = 1_000_000;

describe("UTC periods", () => {
  it.each([
    [
      "2026-12-02T23:59:59.999Z",
      "2026-12-02",
      "2026-12",
      "2026-12-03T00:00:00.000Z",
      "2027-01-01T00:00:00.000Z",
    ],
    [
      "2026-12-31T00:00:00Z",
      "2026-12-31",
      "2026-12",
      "2027-01-01T00:00:00.000Z",
      "2027-01-01T00:00:00.000Z",
    ],
    [
      "2028-02-28T10:00:00Z",
      "2028-02-28",
      "2028-02",
      "2028-02-29T00:00:00.000Z",
      "2028-03-01T00:00:00.000Z",
    ],
  ])("%s", (iso, day, month, nextDay, nextMonth) => {
    const t = Date.parse(iso);
    expect([utcDay(t), utcMonth(t)]).toEqual([day, month]);
    expect(new Date(nextUtcDay(t)).toISOString()).toBe(nextDay);
    expect(new Date(nextUtcMonth(t)).toISOString()).toBe(nextMonth);
  });
});

describe("decideCap", () => {
  const limits = capLimits({ daily: 2, monthly: 20, currency: "USD" });
  it.each([
    ["well under", 0, 0, 1_000, true, null],
    ["exactly reaches the daily cap", 1.5 * M, 5 * M, 0.5 * M, true, null],
    ["one micro over the daily cap", 1.5 * M, 5 * M, 0.5 * M + 1, false, "daily"],
    ["daily already spent", 2 * M, 2 * M, 1, false, "daily"],
    ["monthly cap with daily room", 0, 19.9 * M, 0.2 * M, false, "monthly"],
    ["both over: daily is reported", 2 * M, 20 * M, 1, false, "daily"],
  ])("%s", (_name, day, month, reservation, allow, period) => {
    const d = decideCap({ dayMicros: day, monthMicros: month }, reservation, limits, NOW);
    expect(d.allow).toBe(allow);
    if (!d.allow) expect(d.period).toBe(period);
  });

  it("has no limit without a budget", () => {
    expect(
      decideCap({ dayMicros: 1e12, monthMicros: 1e12 }, 1e9, capLimits(undefined), NOW),
    ).toEqual({
      allow: true,
    });
  });

  it("adds the operator's raise for today to the daily cap only", () => {
    const raised = capLimits({ daily: 2, monthly: 20, currency: "USD" }, 3 * M);
    expect(raised).toEqual({ daily: 5 * M, monthly: 20 * M });
    expect(decideCap({ dayMicros: 4 * M, monthMicros: 4 * M }, 0.5 * M, raised, NOW).allow).toBe(
      true,
    );
  });

  it("says what was reached and when it resets", () => {
    const daily = decideCap({ dayMicros: 2 * M, monthMicros: 0 }, 1, limits, NOW);
    const monthly = decideCap({ dayMicros: 0, monthMicros: 20 * M }, 1, limits, NOW);
    if (daily.allow || monthly.allow) throw new Error("expected refusals");
    expect(daily.resetsAt).toBe(Date.parse("2026-12-03T00:00:00Z"));
    expect(capMessage(daily)).toBe(
      "This agent reached its daily budget of $2.00; it resets at 00:00 UTC.",
    );
    expect(capMessage(monthly)).toBe(
      "This agent reached its monthly budget of $20.00; it resets on 2027-01-01 at 00:00 UTC.",
    );
  });
});

describe("crossedWarnings", () => {
  const limits = capLimits({ daily: 10, monthly: 100, currency: "USD" });
  it.each([
    ["below the line", 7 * M, 7.9 * M, []],
    ["crosses the daily line", 7.9 * M, 8 * M, ["daily"]],
    ["already past it: no repeat", 8 * M, 9 * M, []],
  ])("%s", (_name, before, after, crossed) => {
    expect(
      crossedWarnings(
        { dayMicros: before, monthMicros: 0 },
        { dayMicros: after, monthMicros: 0 },
        limits,
      ),
    ).toEqual(crossed);
  });

  it("crosses both at once", () => {
    expect(
      crossedWarnings(
        { dayMicros: 0, monthMicros: 79 * M },
        { dayMicros: 9 * M, monthMicros: 88 * M },
        limits,
      ),
    ).toEqual(["daily", "monthly"]);
  });
});

describe("budgetSchema", () => {
  it.each([
    [{ daily: 2, monthly: 20, currency: "USD" }, true],
    [{ daily: 2 }, true],
    [{ daily: 0 }, false],
    [{ daily: -1 }, false],
    [{ daily: 2, currency: "EUR" }, false],
    [{ weekly: 2 }, false],
  ])("%j valid: %s", (input, ok) => {
    expect(budgetSchema.safeParse(input).success).toBe(ok);
  });
});

describe("refusal bodies", () => {
  it("speaks OpenAI's error shape", () => {
    const r = refusal("openai", "budget_exceeded", "over budget", 3600);
    expect(r.status).toBe(429);
    expect(r.headers["retry-after"]).toBe("3600");
    expect(r.body).toEqual({
      error: {
        message: "over budget",
        type: "insufficient_quota",
        param: null,
        code: "budget_exceeded",
      },
    });
  });

  it("speaks Anthropic's error shape", () => {
    const r = refusal("anthropic", "unauthorized", "bad credential");
    expect(r.status).toBe(401);
    expect(r.headers["retry-after"]).toBeUndefined();
    expect(r.body).toEqual({
      type: "error",
      error: { type: "authentication_error", message: "bad credential" },
    });
  });

  it.each([
    ["upstream_timeout", 504],
    ["upstream_unreachable", 502],
    ["unpriced_model", 403],
    ["bad_request", 400],
    ["usage_unrecorded", 503],
  ] as const)("%s is %i", (kind, status) => {
    expect(refusal("openai", kind, "x").status).toBe(status);
  });
});

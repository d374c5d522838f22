import { describe, expect, it } from "vitest";
import { LIFECYCLE } from "../../config/constants";
import { lockMaxHoldMs, startupBudgetMs } from "./deps";

const timings = { ...LIFECYCLE };
const agent = (startupBudgetMs?: number) => ({ agent: { startupBudgetMs } as never, timings });

describe("an agent's start budget", () => {
  it.each([
    [undefined, 15_000, 5 * 60_000],
    [10_000, 10_000, 5 * 60_000],
    [2 * 60_000, 2 * 60_000, 5 * 60_000 + 105_000],
    [10 * 60_000, 10 * 60_000, 5 * 60_000 + 585_000],
  ])("budget %s -> waits %i ms, the lock renews for %i ms", (own, wait, hold) => {
    expect(startupBudgetMs(agent(own))).toBe(wait);
    expect(lockMaxHoldMs(agent(own))).toBe(hold);
  });
});

import { describe, expect, it } from "vitest";
import { planShutdown } from "./plan";

const NOW = Date.UTC(2026, 11, 2, 12, 0);
const running = { status: "running" as const, sandboxId: "sbx_1", ttlDeadline: NOW + 45 * 60_000 };

describe("planShutdown", () => {
  it.each([
    ["running, default: snapshot + stop", running, "sleep", "sleep", /putting the agent to sleep/],
    [
      "running, CLAWRUN_ON_EXIT=keep: what keeps running until when",
      running,
      "keep",
      "keep",
      /sandbox sbx_1 keeps running until 12:45 UTC \(~45 min\)/,
    ],
    [
      "half-way through a wake: say so, do not fight the lock",
      { ...running, status: "starting" as const },
      "sleep",
      "keep",
      /starting \(an operation is half-way\).*until 12:45/,
    ],
    [
      "asleep: nothing to do",
      { status: "sleeping" as const, sandboxId: null, ttlDeadline: null },
      "sleep",
      "leave",
      /nothing keeps running/,
    ],
    ["never started", null, "sleep", "leave", /uninitialized/],
  ] as const)("%s", (_name, state, onExit, kind, say) => {
    const plan = planShutdown({ state, onExit, now: NOW });
    expect(plan.kind).toBe(kind);
    expect(plan.say).toMatch(say);
  });
});

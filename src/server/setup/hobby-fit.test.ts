import { describe, expect, it } from "vitest";
import { REDIS_COMMANDS_PER_STEP as CMD } from "../store/step-commands";
import { FREE_LIMITS } from "./free-limits";
import { type AgentUsageConfig, agentMonth, DEFAULT_USAGE, hobbyFit, overBy } from "./hobby-fit";

const agent = (over: Partial<AgentUsageConfig> = {}): AgentUsageConfig => ({
  name: "a",
  activeDurationS: 300,
  cronWakeLeadTimeS: 60,
  vcpus: 2,
  cron: [],
  ...over,
});
const quiet = { messagesPerDay: 0, messagesPerWake: 1, modelCallsPerMessage: 0, cpuBusyShare: 1 };

describe("hobbyFit (free-plan estimate)", () => {
  it("counts one agent's month from its messages: wakes, awake hours, heartbeats, store commands", () => {
    const usage = {
      messagesPerDay: 10,
      messagesPerWake: 5,
      modelCallsPerMessage: 2,
      cpuBusyShare: 0.5,
    };
    const m = agentMonth(agent(), usage, 60_000);
    // 300 messages in 60 bursts, each awake 5 minutes: 5 hours, 300 heartbeats.
    expect(m.sandboxCreations).toBe(60);
    expect(m.awakeHours).toBe(5);
    expect(m.sandboxCpuHours).toBe(5 * 2 * 0.5);
    expect(m.sandboxMemoryGbHours).toBe(5 * 2 * 2);
    expect(m.functionInvocations).toBe(300 + 300 + 600);
    expect(m.upstashCommands).toBe(
      300 * CMD["heartbeat (nothing to do)"] +
        300 * (CMD["message stored (webhook)"] + CMD["message delivered (agent awake)"]) +
        600 * CMD["model call (gateway)"] +
        60 * (CMD["wake from a snapshot"] + CMD["sleep (snapshot + stop)"]) +
        30 * CMD["tick while asleep, after a change"],
    );
  });

  it("reads cron schedules: a weekday job fires 22 times in the month, an every-minute one keeps it awake", () => {
    const weekdays = agentMonth(agent({ cron: [{ schedule: "0 9 * * 1-5" }] }), quiet);
    expect(weekdays.sandboxCreations).toBe(22); // 30 days from a Monday: 4 weeks + 2 days
    expect(weekdays.awakeHours).toBeCloseTo((22 * 360) / 3600);
    const always = agentMonth(agent({ cron: [{ schedule: "* * * * *" }] }), quiet);
    expect(always.awakeHours).toBe(30 * 24);
  });

  it("sums the agents, adds the daily cron once, and lists the limits exceeded worst first", () => {
    const one = hobbyFit([agent()]);
    expect(one.agents).toBe(1);
    expect(one.over).toEqual([]);
    expect(one.limits.map((l) => l.limit)).toEqual(
      Object.values(FREE_LIMITS).map((l) => l.perMonth),
    );
    const fifty = hobbyFit(Array.from({ length: 50 }, (_, i) => agent({ name: `a${i}` })));
    const single = agentMonth(agent(), DEFAULT_USAGE);
    expect(fifty.perMonth.upstashCommands).toBeCloseTo(50 * single.upstashCommands);
    expect(fifty.perMonth.functionInvocations).toBeCloseTo(50 * single.functionInvocations + 30);
    expect(fifty.over.map((l) => l.id)).toContain("upstashCommands");
    const shares = fifty.over.map((l) => l.share);
    expect(shares).toEqual([...shares].sort((a, b) => b - a));
    expect(shares.every((s) => s > 1)).toBe(true);
  });

  it("leaves Upstash's free commands out when the store is not Upstash", () => {
    const fifty = Array.from({ length: 50 }, (_, i) => agent({ name: `a${i}` }));
    const onRedis = hobbyFit(fifty, DEFAULT_USAGE, false);
    expect(onRedis.limits.map((l) => l.id)).not.toContain("upstashCommands");
    expect(onRedis.over.map((l) => l.id)).not.toContain("upstashCommands");
    expect(onRedis.over.length).toBeGreaterThan(0);
  });

  it("says how far over a limit is", () => {
    const l = {
      id: "sandboxCpuHours" as const,
      label: "x",
      unit: "CPU-hours",
      used: 12.5,
      limit: 5,
      share: 2.5,
    };
    expect(overBy(l)).toBe("~12.5 CPU-hours a month, 2.5× the 5 included (+7.5)");
  });
});

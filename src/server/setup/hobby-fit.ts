import { LIFECYCLE } from "../../config/constants";
import type { ClawrunConfig } from "../../config/schema";
import { countOccurrences } from "../cron/schedule";
import { REDIS_COMMANDS_PER_STEP as CMD } from "../store/step-commands";
import { FREE_LIMITS, type FreeLimitId } from "./free-limits";

/**
 * Pure: what a deployment's agents use of the free plans in a month, estimated from their
 * config and a stated usage assumption, and how that compares with the free limits
 * (docs/several-agents.md, "How many agents fit the free plans"). An estimate, not a bill: it
 * is an upper bound where awake periods could overlap, and it leaves out the dashboard.
 */

const HOUR = 60 * 60_000;
const DAY = 24 * HOUR;
/** A month of 30 days, counted from a fixed instant so the same config gives the same figures. */
const MONTH_FROM = Date.UTC(2026, 0, 5); // a Monday: weekday schedules count whole weeks
const MONTH_MS = 30 * DAY;
/** Vercel allocates 2 GB of memory per vCPU (src/server/providers/vercel/pricing.ts). */
const MEMORY_GB_PER_VCPU = 2;

/** One agent's config, as far as the estimate needs it. */
export interface AgentUsageConfig {
  name: string;
  /** sandbox.activeDuration: seconds awake after the last activity. */
  activeDurationS: number;
  /** sandbox.cronWakeLeadTime: seconds awake before a job is due. */
  cronWakeLeadTimeS: number;
  vcpus: number;
  cron: { schedule: string; timezone?: string }[];
}

/** Pure: the part of one agent's clawrun.json the estimate reads. */
export function usageConfigOf(name: string, config: ClawrunConfig): AgentUsageConfig {
  return {
    name,
    activeDurationS: config.sandbox.activeDuration,
    cronWakeLeadTimeS: config.sandbox.cronWakeLeadTime,
    vcpus: config.sandbox.resources.vcpus,
    cron: config.cron.map((j) => ({ schedule: j.schedule, timezone: j.timezone })),
  };
}

/** What is assumed about use; docs/several-agents.md states the default. */
export interface UsageAssumption {
  /** Chat messages each agent receives a day. */
  messagesPerDay: number;
  /** Messages answered in one awake period (a conversation comes in bursts). */
  messagesPerWake: number;
  /** Model calls one message costs through the gateway. */
  modelCallsPerMessage: number;
  /** Share of awake vCPU time that is busy (Active CPU bills only that; waits are free). */
  cpuBusyShare: number;
}

export const DEFAULT_USAGE: UsageAssumption = {
  messagesPerDay: 20,
  messagesPerWake: 4,
  modelCallsPerMessage: 3,
  cpuBusyShare: 0.1,
};

export type MonthlyUse = Record<FreeLimitId, number> & { awakeHours: number };

export interface LimitUse {
  id: FreeLimitId;
  label: string;
  unit: string;
  used: number;
  limit: number;
  /** used ÷ limit: above 1 is over the free limit. */
  share: number;
}

export interface HobbyFit {
  agents: number;
  perMonth: MonthlyUse;
  limits: LimitUse[];
  /** The limits the estimate exceeds, worst first. */
  over: LimitUse[];
}

/** Pure: one agent's month under `usage`. */
export function agentMonth(
  a: AgentUsageConfig,
  usage: UsageAssumption,
  heartbeatIntervalMs: number = LIFECYCLE.heartbeatIntervalMs,
): MonthlyUse {
  const days = MONTH_MS / DAY;
  const messages = usage.messagesPerDay * days;
  const messageWakes = Math.ceil(messages / Math.max(1, usage.messagesPerWake));
  // Past this many fires the agent is awake all month anyway: counting stops there (an
  // every-minute job would take seconds to count in full).
  const cronAwakeMs = (a.activeDurationS + a.cronWakeLeadTimeS) * 1000;
  const enough = Math.ceil(MONTH_MS / cronAwakeMs) + 1;
  const cronFires = a.cron.reduce(
    (n, job) => n + countOccurrences(job, MONTH_FROM, MONTH_FROM + MONTH_MS, enough),
    0,
  );
  // Each wake stays up activeDuration after its last activity (a cron wake also starts the
  // lead time early); overlapping periods are counted twice, so this is an upper bound.
  const awakeMs = Math.min(
    MONTH_MS,
    messageWakes * a.activeDurationS * 1000 + cronFires * cronAwakeMs,
  );
  const wakes = messageWakes + cronFires;
  const heartbeats = awakeMs / heartbeatIntervalMs;
  const modelCalls = messages * usage.modelCallsPerMessage;
  const delivered = messages + cronFires; // a cron job is a message delivered
  const awakeHours = awakeMs / HOUR;
  return {
    awakeHours,
    sandboxCpuHours: awakeHours * a.vcpus * usage.cpuBusyShare,
    sandboxMemoryGbHours: awakeHours * a.vcpus * MEMORY_GB_PER_VCPU,
    sandboxCreations: wakes,
    // Heartbeats, webhooks, gateway calls and scheduled wakes each reach a function.
    functionInvocations: heartbeats + messages + modelCalls + cronFires,
    upstashCommands:
      heartbeats * CMD["heartbeat (nothing to do)"] +
      messages * CMD["message stored (webhook)"] +
      delivered * CMD["message delivered (agent awake)"] +
      modelCalls * CMD["model call (gateway)"] +
      wakes * (CMD["wake from a snapshot"] + CMD["sleep (snapshot + stop)"]) +
      // The daily Vercel Cron ticks every agent, on a function instance new to it: a full tick.
      days * CMD["tick while asleep, after a change"],
  };
}

/** Pure: the deployment's month (its agents summed, plus the daily cron) against the limits. */
export function hobbyFit(
  agents: readonly AgentUsageConfig[],
  usage: UsageAssumption = DEFAULT_USAGE,
  /** The store is Upstash: its free commands count (a TCP Redis or SQLite has no such limit). */
  upstash = true,
): HobbyFit {
  const total: MonthlyUse = {
    awakeHours: 0,
    sandboxCpuHours: 0,
    sandboxMemoryGbHours: 0,
    sandboxCreations: 0,
    // The daily Vercel Cron is one invocation a day for the whole deployment.
    functionInvocations: MONTH_MS / DAY,
    upstashCommands: 0,
  };
  for (const a of agents) {
    const m = agentMonth(a, usage);
    for (const k of Object.keys(total) as (keyof MonthlyUse)[]) total[k] += m[k];
  }
  const ids = (Object.keys(FREE_LIMITS) as FreeLimitId[]).filter(
    (id) => upstash || id !== "upstashCommands",
  );
  const limits = ids.map((id) => {
    const l = FREE_LIMITS[id];
    return {
      id,
      label: l.label,
      unit: l.unit,
      used: total[id],
      limit: l.perMonth,
      share: total[id] / l.perMonth,
    };
  });
  return {
    agents: agents.length,
    perMonth: total,
    limits,
    over: limits.filter((l) => l.share > 1).sort((a, b) => b.share - a.share),
  };
}

/** "12.5 CPU-hours, 2.5× the 5": how far over one limit is, in words. */
export function overBy(l: LimitUse): string {
  const fmt = (n: number) =>
    n >= 100 ? Math.round(n).toLocaleString("en-US") : String(Math.round(n * 10) / 10);
  return `~${fmt(l.used)} ${l.unit} a month, ${fmt(l.share)}× the ${fmt(l.limit)} included (+${fmt(l.used - l.limit)})`;
}

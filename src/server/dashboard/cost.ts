import type { AwakeInterval } from "../domain/events";
import { summarizeAwake } from "./awake-time";
import type { ModelSpendCard } from "./model-spend";
import { REDIS_COMMANDS_PER_HEARTBEAT, UPSTASH_PRICES, VERCEL_SANDBOX_PRICES } from "./pricing";

const HOUR = 60 * 60_000;
const GB = 1024 ** 3;

export interface CostLine {
  label: string;
  /** The quantity in words ("3.2 GB-hours"). */
  quantity: string;
  usd: number;
  /** An upper bound rather than a measurement (Active CPU is not reported per sandbox here). */
  atMost?: boolean;
}

export interface CostSummary {
  /** First instant of the calendar month (UTC) the figures cover, and how far into it we are. */
  monthStart: number;
  elapsedMs: number;
  awakeMs: number;
  sandboxesCreated: number;
  /** Priced on the configured provider; `local` costs nothing. */
  provider: string;
  lines: CostLine[];
  totalUsd: number;
  /** The same month so far with the sandbox never asleep. */
  alwaysOnUsd: number;
  rates: { asOf: string; source: string }[];
  note: string;
  /** Model spend through the gateway; null when the agent has no model and spent nothing. */
  model?: ModelSpendCard | null;
}

export interface CostFacts {
  provider: string;
  store: "sqlite" | "upstash" | "redis-tcp";
  vcpus: number;
  intervals: readonly AwakeInterval[];
  /** The sandbox running now, since when (null: none). */
  openSince: number | null;
  snapshotBytes: number;
  heartbeatIntervalMs: number;
  now: number;
}

/** Pure: the first instant of `now`'s calendar month, UTC. */
export function monthStartUtc(now: number): number {
  const d = new Date(now);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
}

/**
 * Pure: what this month has cost so far. Memory is billed for every hour awake; Active CPU
 * only while busy, so the CPU line is the most it can be (every vCPU busy the whole time).
 * The always-on figure prices the same month with the sandbox never asleep: memory for the
 * whole month, the same CPU work (work costs the same awake or not), a creation every
 * maximum run, and the same store traffic per heartbeat around the clock.
 */
export function monthCost(f: CostFacts): CostSummary {
  const monthStart = monthStartUtc(f.now);
  const elapsedMs = Math.max(1, f.now - monthStart);
  const awakeMs = summarizeAwake(f.intervals, f.openSince, f.now, elapsedMs).awakeMs;
  const created =
    f.intervals.filter((i) => i.start >= monthStart).length +
    (f.openSince !== null && f.openSince >= monthStart ? 1 : 0);
  const lines: CostLine[] = [];
  const rates: CostSummary["rates"] = [];
  let alwaysOn = 0;

  if (f.provider === "vercel") {
    const p = VERCEL_SANDBOX_PRICES;
    const memGb = f.vcpus * p.memoryGbPerVcpu;
    const gbHours = (memGb * awakeMs) / HOUR;
    const cpuHours = (f.vcpus * awakeMs) / HOUR;
    const storedGb = f.snapshotBytes / GB;
    const storage = storedGb * p.storagePerGbMonth * (elapsedMs / monthLengthMs(f.now));
    lines.push(
      {
        label: "Active CPU",
        quantity: `${cpuHours.toFixed(2)} vCPU-hours`,
        usd: cpuHours * p.activeCpuPerHour,
        atMost: true,
      },
      {
        label: "Memory",
        quantity: `${gbHours.toFixed(2)} GB-hours (${memGb} GB)`,
        usd: gbHours * p.memoryPerGbHour,
      },
      { label: "Sandbox creations", quantity: `${created}`, usd: created * p.perCreation },
      { label: "Snapshot storage", quantity: `${storedGb.toFixed(3)} GB`, usd: storage },
    );
    const fullGbHours = (memGb * elapsedMs) / HOUR;
    const restarts = Math.ceil(elapsedMs / p.maxRunMs);
    alwaysOn += cpuHours * p.activeCpuPerHour + fullGbHours * p.memoryPerGbHour;
    alwaysOn += restarts * p.perCreation;
    rates.push({ asOf: p.asOf, source: p.source });
  } else {
    lines.push({
      label: `Sandbox (${f.provider})`,
      quantity: "runs on this machine",
      usd: 0,
    });
  }

  if (f.store === "upstash") {
    const perBeat = REDIS_COMMANDS_PER_HEARTBEAT * UPSTASH_PRICES.perCommand;
    const beats = awakeMs / f.heartbeatIntervalMs;
    lines.push({
      label: "Store commands",
      quantity: `~${Math.round(beats * REDIS_COMMANDS_PER_HEARTBEAT).toLocaleString("en-US")} (heartbeats)`,
      usd: beats * perBeat,
    });
    alwaysOn += (elapsedMs / f.heartbeatIntervalMs) * perBeat;
    rates.push({ asOf: UPSTASH_PRICES.asOf, source: UPSTASH_PRICES.source });
  }

  const total = lines.reduce((s, l) => s + l.usd, 0);
  return {
    monthStart,
    elapsedMs,
    awakeMs,
    sandboxesCreated: created,
    provider: f.provider,
    lines,
    totalUsd: total,
    alwaysOnUsd: alwaysOn,
    rates,
    note:
      f.provider === "vercel"
        ? "List prices (Pro); Hobby includes 5 CPU-hours, 420 GB-hours and 5,000 creations a month at no cost."
        : "Local sandboxes are processes on this machine: no sandbox bill.",
  };
}

function monthLengthMs(now: number): number {
  const start = monthStartUtc(now);
  const d = new Date(start);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) - start;
}

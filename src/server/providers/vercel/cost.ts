import type { SandboxCost, SandboxCostFacts } from "../cost-types";
import { VERCEL_SANDBOX_PRICES as P } from "./pricing";

const HOUR = 60 * 60_000;
const GB = 1024 ** 3;

/**
 * Pure: this month's Vercel Sandbox bill. Memory is billed for every hour awake; Active CPU
 * only while busy, so the CPU line is the most it can be (every vCPU busy the whole time).
 * Always on prices memory for the whole month, the same CPU work (work costs the same awake
 * or not) and a creation every maximum run.
 */
export function vercelSandboxCost(f: SandboxCostFacts): SandboxCost {
  const memGb = f.vcpus * P.memoryGbPerVcpu;
  const gbHours = (memGb * f.awakeMs) / HOUR;
  const cpuHours = (f.vcpus * f.awakeMs) / HOUR;
  const storedGb = f.snapshotBytes / GB;
  const storage = storedGb * P.storagePerGbMonth * (f.elapsedMs / f.monthMs);
  const fullGbHours = (memGb * f.elapsedMs) / HOUR;
  const restarts = Math.ceil(f.elapsedMs / P.maxRunMs);
  let alwaysOn = cpuHours * P.activeCpuPerHour + fullGbHours * P.memoryPerGbHour;
  alwaysOn += restarts * P.perCreation;
  return {
    lines: [
      {
        label: "Active CPU",
        quantity: `${cpuHours.toFixed(2)} vCPU-hours`,
        usd: cpuHours * P.activeCpuPerHour,
        atMost: true,
      },
      {
        label: "Memory",
        quantity: `${gbHours.toFixed(2)} GB-hours (${memGb} GB)`,
        usd: gbHours * P.memoryPerGbHour,
      },
      { label: "Sandbox creations", quantity: `${f.created}`, usd: f.created * P.perCreation },
      { label: "Snapshot storage", quantity: `${storedGb.toFixed(3)} GB`, usd: storage },
    ],
    alwaysOnUsd: alwaysOn,
    rates: [{ asOf: P.asOf, source: P.source }],
    note: "List prices (Pro); Hobby includes 5 CPU-hours, 420 GB-hours and 5,000 creations a month at no cost.",
  };
}

import type { FleetRowView } from "./api-schemas";
import { clock, duration } from "./format";

/**
 * Pure: `clawrun status` of a deployment with several agents, one aligned row per agent in
 * the file's order, then the error of each failed one (too long for a column).
 */
export function formatFleet(rows: FleetRowView[], now: number): string[] {
  const table = [
    ["agent", "status", "since", "pending", "failed", "awake today"],
    ...rows.map((r) => [
      r.isDefault ? `${r.name} (default)` : r.name,
      r.status,
      when(r, now),
      String(r.pending),
      String(r.failed),
      duration(r.awakeTodayMs),
    ]),
  ];
  const widths = table[0]?.map((_, col) => Math.max(...table.map((row) => row[col]?.length ?? 0)));
  const lines = table.map((row) =>
    row
      .map((cell, col) => (col === row.length - 1 ? cell : cell.padEnd(widths?.[col] ?? 0)))
      .join("  ")
      .trimEnd(),
  );
  for (const r of rows) if (r.error) lines.push(`${r.name}: ${r.error}`);
  lines.push("(clawrun status --agent <name>: one agent in detail)");
  return lines;
}

/** When it got into its status; a running agent also when it goes to sleep. */
function when(r: FleetRowView, now: number): string {
  if (r.status === "uninitialized" || !r.since) return "never started";
  const since = `${clock(r.since, now)} (${duration(now - r.since)})`;
  if (r.status !== "running" || !r.activeUntil) return since;
  return `${since} · sleeps in ~${duration(r.activeUntil - now)}`;
}

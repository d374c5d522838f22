import { formatDuration } from "../_dashboard/format";

/**
 * Pure: the fleet row's countdown. Only a running agent with a forecast (after its first
 * heartbeat) has one; past it, it sleeps when the next heartbeat is judged.
 */
export function formatSleepsIn(
  row: { status: string; activeUntil: number | null },
  now: number,
): string {
  if (row.status !== "running" || row.activeUntil === null) return "—";
  const left = row.activeUntil - now;
  return left > 0 ? `sleeps in ${formatDuration(left)}` : "sleeps at the next heartbeat";
}

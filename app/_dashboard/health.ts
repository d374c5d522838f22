import { formatDuration } from "./format";

/**
 * Pure: the last heartbeat against its expected interval. One missed beat is allowed (a slow
 * request); beyond two intervals it is overdue — the sidecar or the network is in trouble.
 */
export function heartbeatPunctuality(ageMs: number, intervalMs: number): string {
  const every = `every ${formatDuration(intervalMs)}`;
  return ageMs <= 2 * intervalMs ? `on time (${every})` : `overdue (expected ${every})`;
}

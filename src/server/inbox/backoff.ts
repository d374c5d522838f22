/** Delay before retry number `attempt` (1-based): base, 2×base, 4×base, … capped at 5 minutes. */
export function retryDelayMs(attempt: number, baseMs: number): number {
  return Math.min(baseMs * 2 ** Math.max(0, attempt - 1), 5 * 60_000);
}

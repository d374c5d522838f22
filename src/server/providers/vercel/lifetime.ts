import { ProviderError } from "../types";

/**
 * Pure TTL arithmetic against the plan's cap. Vercel counts a session's timeout from its
 * start, extensions included, and stops it at the plan's maximum (docs/vercel-sandbox.md).
 */

/** The timeout to ask for at create/resume: what the lifecycle wants, never past the cap. */
export function cappedTimeout(wantedMs: number, capMs: number | null): number {
  if (!Number.isInteger(wantedMs) || wantedMs <= 0) {
    throw new ProviderError(`timeoutMs must be a positive integer, got ${wantedMs}`);
  }
  return capMs === null ? wantedMs : Math.min(wantedMs, capMs);
}

export type ExtensionPlan = { ok: true; totalMs: number } | { ok: false; reason: string };

/** extendTimeout is additive; one that would carry the session past the cap is refused whole. */
export function planExtension(
  currentTotalMs: number,
  byMs: number,
  capMs: number | null,
): ExtensionPlan {
  if (!Number.isFinite(byMs) || byMs <= 0) {
    return { ok: false, reason: `expected a positive number of ms, got ${byMs}` };
  }
  const totalMs = currentTotalMs + Math.ceil(byMs);
  if (capMs !== null && totalMs > capMs) {
    return {
      ok: false,
      reason: `extending by ${Math.ceil(byMs)} ms would make the session ${totalMs} ms long, past the plan's cap of ${capMs} ms (sandbox.vercel.maxTimeoutMinutes)`,
    };
  }
  return { ok: true, totalMs };
}

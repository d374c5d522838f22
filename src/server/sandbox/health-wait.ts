import { type SidecarHealth, sidecarHealthSchema } from "../../protocol/health";

export type HealthOutcome =
  | { ok: true; health: SidecarHealth; waitedMs: number }
  | { ok: false; reason: string; health: SidecarHealth | null; waitedMs: number };

/**
 * Seed 000 step 5: confirm the daemon through the sidecar's health server within the budget
 * (15 × 1 s). We poll more often inside the same budget to notice "healthy" sooner, and
 * break early when the supervisor reports the daemon `failed`.
 */
export async function waitForHealth(
  healthUrl: string,
  opts: { budgetMs: number; pollMs: number; onPoll?: () => Promise<void> },
): Promise<HealthOutcome> {
  const started = Date.now();
  let last: SidecarHealth | null = null;
  let lastError = "sidecar did not answer";
  while (Date.now() - started < opts.budgetMs) {
    await opts.onPoll?.();
    try {
      const res = await fetch(healthUrl, {
        signal: AbortSignal.timeout(Math.max(opts.pollMs * 4, 1000)),
      });
      const parsed = sidecarHealthSchema.safeParse(await res.json());
      if (parsed.success) {
        last = parsed.data;
        if (last.ok) return { ok: true, health: last, waitedMs: Date.now() - started };
        if (last.daemon.status === "failed") {
          return {
            ok: false,
            reason: `daemon failed after ${last.daemon.restarts} restarts`,
            health: last,
            waitedMs: Date.now() - started,
          };
        }
        lastError = `daemon is ${last.daemon.status}`;
      } else {
        lastError = "sidecar health answer did not match the protocol";
      }
    } catch (err) {
      lastError = `sidecar unreachable: ${(err as Error).message}`;
    }
    await new Promise((r) => setTimeout(r, opts.pollMs));
  }
  return {
    ok: false,
    reason: `not healthy within ${Math.round(opts.budgetMs / 1000)} s (${lastError})`,
    health: last,
    waitedMs: Date.now() - started,
  };
}

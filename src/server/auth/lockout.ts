import type { AppContext } from "../app-context";
import type { Refusal } from "./refusal";

/**
 * Failed guesses of ADMIN_SECRET allowed per client per window before it is refused (the
 * brute-force brake). Sign-in and the operator API's bearer token count in the same bucket,
 * so a locked-out guesser cannot simply switch doors.
 */
export const SIGN_IN_LIMIT = { failures: 10, windowMs: 15 * 60_000 } as const;

/**
 * Who is guessing, for the failure count. On Vercel the platform overwrites
 * x-forwarded-for with the real client address. Elsewhere `next start` passes a client's own
 * x-forwarded-for through unchanged, so it cannot be trusted: all clients share one bucket
 * (an attacker can delay the operator, but never gets more than the limit of guesses).
 */
export function clientId(headers: { get(name: string): string | null }, onVercel: boolean): string {
  if (!onVercel) return "local";
  return headers.get("x-forwarded-for")?.split(",")[0]?.trim() || "unknown";
}

const failuresKey = (client: string) => `signin-failures:${client}`;
const lockKey = (client: string) => `signin-locked-until:${client}`;

/** The 429 refusal while `client` is locked out, or null when it may try. */
export async function lockedOut(
  ctx: Pick<AppContext, "store">,
  client: string,
): Promise<Refusal | null> {
  const failures = await ctx.store.counters.read(failuresKey(client));
  if (failures < SIGN_IN_LIMIT.failures) return null;
  const until = Number(await ctx.store.kv.get(lockKey(client)));
  return tooMany(failures, Number.isFinite(until) && until > 0 ? until : null);
}

/** Counts one wrong secret; answers the 429 when this one reached the limit, else the attempts left. */
export async function recordFailure(
  ctx: Pick<AppContext, "logger" | "store">,
  client: string,
  via: "sign-in" | "bearer",
): Promise<{ locked: Refusal } | { locked: null; left: number }> {
  const { count, resetAt } = await ctx.store.counters.hit(
    failuresKey(client),
    SIGN_IN_LIMIT.windowMs,
  );
  ctx.logger.warn({ client, failures: count, via }, "wrong operator secret");
  if (count < SIGN_IN_LIMIT.failures) return { locked: null, left: SIGN_IN_LIMIT.failures - count };
  // The counter knows when its window ends only at hit time: remember it for the message.
  await ctx.store.kv.set(lockKey(client), String(resetAt), Math.max(1, resetAt - Date.now()));
  return { locked: tooMany(count, resetAt) };
}

/** A successful sign-in forgets earlier typos (the operator knows the secret). */
export async function clearFailures(ctx: Pick<AppContext, "store">, client: string): Promise<void> {
  await ctx.store.counters.clear(failuresKey(client));
}

/** Refused for too many failures, saying until when (retry-after lets the page show local time). */
export function tooMany(failures: number, until: number | null, now = Date.now()): Refusal {
  const msLeft = until === null ? SIGN_IN_LIMIT.windowMs : Math.max(0, until - now);
  const minutes = Math.max(1, Math.ceil(msLeft / 60_000));
  const at = until === null ? "" : ` (at ${new Date(until).toISOString().slice(11, 16)} UTC)`;
  return {
    status: 429,
    code: "too_many_attempts",
    message: `Too many failed sign-ins from your address (${failures}). Sign-in is locked for ${minutes} more minute${minutes === 1 ? "" : "s"}${at}; try again then.`,
    headers: { "retry-after": String(Math.ceil(msLeft / 1000)) },
  };
}

import { NextResponse } from "next/server";
import { z } from "zod";
import type { AppContext } from "../context";
import { jsonError } from "../http/errors";
import { secretEquals } from "./constant-time";
import { requestIsHttps } from "./cookie-security";
import { allowedOrigins, checkOrigin } from "./csrf";
import { sessionSecrets } from "./operator";
import { issueSession, SESSION_COOKIE, SESSION_TTL_SECONDS, sessionCookieOptions } from "./session";

/** Failed sign-ins allowed per client per window before it is refused (brute-force brake). */
export const SIGN_IN_LIMIT = { failures: 10, windowMs: 15 * 60_000 } as const;

const bodySchema = z.strictObject({ secret: z.string().min(1).max(1024) });

/**
 * Who is signing in, for the failure count. On Vercel the platform overwrites
 * x-forwarded-for with the real client address. Elsewhere `next start` passes a client's own
 * x-forwarded-for through unchanged, so it cannot be trusted: all clients share one bucket
 * (an attacker can delay the operator, but never gets more than the limit of guesses).
 */
export function clientId(headers: { get(name: string): string | null }, onVercel: boolean): string {
  if (!onVercel) return "local";
  return headers.get("x-forwarded-for")?.split(",")[0]?.trim() || "unknown";
}

export async function signIn(request: Request, ctx: AppContext): Promise<Response> {
  const origin = checkOrigin(
    request.headers,
    allowedOrigins(request.url, request.headers.get("host"), ctx.env.publicUrl),
  );
  if (!origin.ok) return jsonError(403, "forbidden_origin", origin.reason);
  const client = clientId(request.headers, ctx.env.onVercel);
  const key = `signin-failures:${client}`;
  const lockKey = `signin-locked-until:${client}`;
  const failures = await ctx.store.counters.read(key);
  if (failures >= SIGN_IN_LIMIT.failures) {
    const until = Number(await ctx.store.kv.get(lockKey));
    return tooMany(failures, Number.isFinite(until) && until > 0 ? until : null);
  }

  let json: unknown;
  try {
    json = await request.json();
  } catch {
    return jsonError(400, "invalid_json", 'body: expected JSON { "secret": "..." }');
  }
  const body = bodySchema.safeParse(json);
  if (!body.success) return jsonError(400, "invalid_body", "secret: expected a non-empty string");

  if (!secretEquals(body.data.secret, ctx.secrets.secrets.ADMIN_SECRET)) {
    const { count, resetAt } = await ctx.store.counters.hit(key, SIGN_IN_LIMIT.windowMs);
    ctx.logger.warn({ client, failures: count }, "failed operator sign-in");
    if (count >= SIGN_IN_LIMIT.failures) {
      // The counter knows when its window ends only at hit time: remember it for the message.
      await ctx.store.kv.set(lockKey, String(resetAt), Math.max(1, resetAt - Date.now()));
      return tooMany(count, resetAt);
    }
    const left = SIGN_IN_LIMIT.failures - count;
    return jsonError(
      401,
      "wrong_secret",
      `That is not the operator secret (ADMIN_SECRET). ${left} attempt${left === 1 ? "" : "s"} left.`,
    );
  }
  // The operator knows the secret: earlier typos no longer count toward a lock-out.
  await ctx.store.counters.clear(key);
  const token = await issueSession(sessionSecrets(ctx));
  const secure = requestIsHttps(request.url, request.headers);
  const res = NextResponse.json({
    ok: true,
    expiresAt: Date.now() + SESSION_TTL_SECONDS * 1000,
    secureCookie: secure,
  });
  res.cookies.set(SESSION_COOKIE, token, sessionCookieOptions(secure));
  return res;
}

export function signOut(request: Request, ctx: AppContext): Response {
  const origin = checkOrigin(
    request.headers,
    allowedOrigins(request.url, request.headers.get("host"), ctx.env.publicUrl),
  );
  if (!origin.ok) return jsonError(403, "forbidden_origin", origin.reason);
  const res = NextResponse.json({ ok: true });
  res.cookies.set(SESSION_COOKIE, "", {
    ...sessionCookieOptions(requestIsHttps(request.url, request.headers)),
    maxAge: 0,
  });
  return res;
}

/** Refused for too many failures, saying until when (retry-after lets the page show local time). */
export function tooMany(failures: number, until: number | null, now = Date.now()): Response {
  const msLeft = until === null ? SIGN_IN_LIMIT.windowMs : Math.max(0, until - now);
  const minutes = Math.max(1, Math.ceil(msLeft / 60_000));
  const at = until === null ? "" : ` (at ${new Date(until).toISOString().slice(11, 16)} UTC)`;
  return jsonError(
    429,
    "too_many_attempts",
    `Too many failed sign-ins from your address (${failures}). Sign-in is locked for ${minutes} more minute${minutes === 1 ? "" : "s"}${at}; try again then.`,
    { "retry-after": String(Math.ceil(msLeft / 1000)) },
  );
}

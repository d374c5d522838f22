import { NextResponse } from "next/server";
import { z } from "zod";
import type { AppContext } from "../context";
import { jsonError } from "../http/errors";
import { secretEquals } from "./constant-time";
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
  const key = `signin-failures:${clientId(request.headers, ctx.env.onVercel)}`;
  const failures = await ctx.store.counters.read(key);
  if (failures >= SIGN_IN_LIMIT.failures) return tooMany(failures);

  let json: unknown;
  try {
    json = await request.json();
  } catch {
    return jsonError(400, "invalid_json", 'body: expected JSON { "secret": "..." }');
  }
  const body = bodySchema.safeParse(json);
  if (!body.success) return jsonError(400, "invalid_body", "secret: expected a non-empty string");

  if (!secretEquals(body.data.secret, ctx.secrets.secrets.ADMIN_SECRET)) {
    const { count } = await ctx.store.counters.hit(key, SIGN_IN_LIMIT.windowMs);
    ctx.logger.warn(
      { client: clientId(request.headers, ctx.env.onVercel), failures: count },
      "failed operator sign-in",
    );
    if (count >= SIGN_IN_LIMIT.failures) return tooMany(count);
    const left = SIGN_IN_LIMIT.failures - count;
    return jsonError(
      401,
      "wrong_secret",
      `That is not the operator secret (ADMIN_SECRET). ${left} attempt${left === 1 ? "" : "s"} left.`,
    );
  }
  const token = await issueSession(sessionSecrets(ctx));
  const res = NextResponse.json({ ok: true, expiresAt: Date.now() + SESSION_TTL_SECONDS * 1000 });
  res.cookies.set(SESSION_COOKIE, token, sessionCookieOptions(ctx.env.production));
  return res;
}

export function signOut(request: Request, ctx: AppContext): Response {
  const origin = checkOrigin(
    request.headers,
    allowedOrigins(request.url, request.headers.get("host"), ctx.env.publicUrl),
  );
  if (!origin.ok) return jsonError(403, "forbidden_origin", origin.reason);
  const res = NextResponse.json({ ok: true });
  res.cookies.set(SESSION_COOKIE, "", { ...sessionCookieOptions(ctx.env.production), maxAge: 0 });
  return res;
}

function tooMany(failures: number): Response {
  const minutes = Math.round(SIGN_IN_LIMIT.windowMs / 60_000);
  return jsonError(
    429,
    "too_many_attempts",
    `Too many failed sign-ins from your address (${failures}). Wait up to ${minutes} minutes and try again.`,
    { "retry-after": String(SIGN_IN_LIMIT.windowMs / 1000) },
  );
}

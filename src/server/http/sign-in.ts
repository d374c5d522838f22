import { NextResponse } from "next/server";
import { z } from "zod";
import { secretEquals } from "../../protocol/constant-time";
import type { AppContext } from "../app-context";
import { requestIsHttps } from "../auth/cookie-security";
import { allowedOrigins, checkOrigin } from "../auth/csrf";
import { clearFailures, clientId, lockedOut, recordFailure } from "../auth/lockout";
import { readCookie, sessionSecrets } from "../auth/operator";
import { revokeSession } from "../auth/revocation";
import {
  issueSession,
  SESSION_COOKIE,
  SESSION_TTL_SECONDS,
  sessionCookieOptions,
  verifySession,
} from "../auth/session";
import { readJson } from "../body/json-body";
import { jsonError, refusalResponse } from "./errors";

export { SIGN_IN_LIMIT } from "../auth/lockout";

/**
 * The largest sign-in body read: `{"secret": …}` with the longest secret accepted (1024
 * characters, up to 4 bytes each in UTF-8) fits. Anything bigger is refused with 413 before
 * it is read (issue 22: a 100 MB body was buffered whole).
 */
export const SIGN_IN_MAX_BYTES = 4 * 1024 + 64;

const bodySchema = z.strictObject({ secret: z.string().min(1).max(1024) });

export async function signIn(
  request: Request,
  ctx: Pick<AppContext, "env" | "logger" | "secrets" | "store">,
): Promise<Response> {
  const origin = checkOrigin(
    request.headers,
    allowedOrigins(request.url, request.headers.get("host"), ctx.env.publicUrl),
  );
  if (!origin.ok) return jsonError(403, "forbidden_origin", origin.reason);
  const client = clientId(request.headers, ctx.env.onVercel);
  const locked = await lockedOut(ctx, client);
  if (locked) return refusalResponse(locked);

  // 400 naming the field, or 413 without reading past the limit (thrown, answered by route()).
  const body = await readJson(request, bodySchema, {
    maxBytes: SIGN_IN_MAX_BYTES,
    what: 'a sign-in { "secret": "<ADMIN_SECRET>" }',
  });

  if (!secretEquals(body.secret, ctx.secrets.secrets.ADMIN_SECRET)) {
    const failure = await recordFailure(ctx, client, "sign-in");
    if (failure.locked) return refusalResponse(failure.locked);
    return jsonError(
      401,
      "wrong_secret",
      `That is not the operator secret (ADMIN_SECRET). ${failure.left} attempt${failure.left === 1 ? "" : "s"} left.`,
    );
  }
  // The operator knows the secret: earlier typos no longer count toward a lock-out.
  await clearFailures(ctx, client);
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

/**
 * Ends the session: revoked in the store (a copy of the cookie no longer works anywhere),
 * then the cookie is cleared. Without a valid cookie there is nothing to revoke: still 200.
 */
export async function signOut(
  request: Request,
  ctx: Pick<AppContext, "env" | "secrets" | "store">,
): Promise<Response> {
  const origin = checkOrigin(
    request.headers,
    allowedOrigins(request.url, request.headers.get("host"), ctx.env.publicUrl),
  );
  if (!origin.ok) return jsonError(403, "forbidden_origin", origin.reason);
  const session = await verifySession(
    readCookie(request.headers.get("cookie"), SESSION_COOKIE),
    sessionSecrets(ctx),
  );
  if (session.ok) await revokeSession(ctx.store.kv, session);
  const res = NextResponse.json({ ok: true });
  res.cookies.set(SESSION_COOKIE, "", {
    ...sessionCookieOptions(requestIsHttps(request.url, request.headers)),
    maxAge: 0,
  });
  return res;
}

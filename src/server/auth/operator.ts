import { bearerToken, secretEquals } from "../../protocol/constant-time";
import type { AppContext } from "../app-context";
import { allowedOrigins, checkOrigin } from "./csrf";
import { clientId, lockedOut, recordFailure } from "./lockout";
import type { Refusal } from "./refusal";
import { isSessionRevoked } from "./revocation";
import { SESSION_COOKIE, type SessionCheck, verifySession } from "./session";

export type OperatorAuth =
  | { ok: true; via: "bearer" | "session" }
  | { ok: false; refusal: Refusal };

export function sessionSecrets(ctx: Pick<AppContext, "secrets">) {
  return {
    clawrunSecret: ctx.secrets.secrets.CLAWRUN_SECRET,
    adminSecret: ctx.secrets.secrets.ADMIN_SECRET,
  };
}

export function readCookie(header: string | null, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const [k, ...v] = part.trim().split("=");
    if (k === name) return decodeURIComponent(v.join("="));
  }
  return undefined;
}

/**
 * A session cookie's verdict: signed by us, not expired, and not signed out since (the one
 * store read per cookie-authenticated request).
 */
export async function checkOperatorSession(
  token: string | undefined,
  ctx: Pick<AppContext, "secrets" | "store">,
): Promise<SessionCheck> {
  const session = await verifySession(token, sessionSecrets(ctx));
  if (!session.ok) return session;
  if (await isSessionRevoked(ctx.store.kv, session.id)) return { ok: false, reason: "revoked" };
  return session;
}

const SESSION_REFUSED: Record<Exclude<SessionCheck, { ok: true }>["reason"], string> = {
  missing: "sign in first",
  invalid: "sign in first",
  expired: "your session expired; sign in again",
  revoked: "this session was signed out; sign in again",
};

/**
 * Every /api/sandbox/* route: `Authorization: Bearer <ADMIN_SECRET>` (scripts), or the
 * session cookie (the dashboard) — and then mutations must come from our own Origin (CSRF).
 * A bearer token is a guess of ADMIN_SECRET like a sign-in: wrong ones count toward the same
 * lock-out, and while it holds every bearer request is refused unchecked (429), else a
 * locked-out guesser would still learn which guess was right.
 */
export async function authorizeOperator(
  request: Request,
  ctx: Pick<AppContext, "env" | "logger" | "secrets" | "store">,
  mutation: boolean,
): Promise<OperatorAuth> {
  const authorization = request.headers.get("authorization");
  if (authorization) {
    const client = clientId(request.headers, ctx.env.onVercel);
    const locked = await lockedOut(ctx, client);
    if (locked) return { ok: false, refusal: locked };
    const token = bearerToken(authorization);
    if (token && secretEquals(token, ctx.secrets.secrets.ADMIN_SECRET))
      return { ok: true, via: "bearer" };
    // A right bearer does not clear the count (unlike a sign-in): a CLI polling with it would
    // otherwise reset it every second and give a guesser unlimited tries on the shared bucket.
    const failure = await recordFailure(ctx, client, "bearer");
    if (failure.locked) return { ok: false, refusal: failure.locked };
    return {
      ok: false,
      refusal: {
        status: 401,
        code: "invalid_token",
        message: "Authorization: expected Bearer <ADMIN_SECRET>",
      },
    };
  }
  const session = await checkOperatorSession(
    readCookie(request.headers.get("cookie"), SESSION_COOKIE),
    ctx,
  );
  if (!session.ok)
    return {
      ok: false,
      refusal: { status: 401, code: "unauthenticated", message: SESSION_REFUSED[session.reason] },
    };
  if (mutation) {
    const origin = checkOrigin(
      request.headers,
      allowedOrigins(request.url, request.headers.get("host"), ctx.env.publicUrl),
    );
    if (!origin.ok)
      return {
        ok: false,
        refusal: { status: 403, code: "forbidden_origin", message: origin.reason },
      };
  }
  return { ok: true, via: "session" };
}

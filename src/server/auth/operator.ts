import type { AppContext } from "../context";
import { jsonError } from "../http/errors";
import { bearerToken, secretEquals } from "./constant-time";
import { allowedOrigins, checkOrigin } from "./csrf";
import { SESSION_COOKIE, verifySession } from "./session";

export type OperatorAuth =
  | { ok: true; via: "bearer" | "session" }
  | { ok: false; response: Response };

export function sessionSecrets(ctx: AppContext) {
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
 * Every /api/sandbox/* route: `Authorization: Bearer <ADMIN_SECRET>` (scripts), or the
 * session cookie (the dashboard) — and then mutations must come from our own Origin (CSRF).
 */
export async function authorizeOperator(
  request: Request,
  ctx: AppContext,
  mutation: boolean,
): Promise<OperatorAuth> {
  const authorization = request.headers.get("authorization");
  if (authorization) {
    const token = bearerToken(authorization);
    if (token && secretEquals(token, ctx.secrets.secrets.ADMIN_SECRET))
      return { ok: true, via: "bearer" };
    return {
      ok: false,
      response: jsonError(401, "invalid_token", "Authorization: expected Bearer <ADMIN_SECRET>"),
    };
  }
  const session = await verifySession(
    readCookie(request.headers.get("cookie"), SESSION_COOKIE),
    sessionSecrets(ctx),
  );
  if (!session.ok) {
    const why =
      session.reason === "expired" ? "your session expired; sign in again" : "sign in first";
    return { ok: false, response: jsonError(401, "unauthenticated", why) };
  }
  if (mutation) {
    const origin = checkOrigin(
      request.headers,
      allowedOrigins(request.url, request.headers.get("host"), ctx.env.publicUrl),
    );
    if (!origin.ok)
      return { ok: false, response: jsonError(403, "forbidden_origin", origin.reason) };
  }
  return { ok: true, via: "session" };
}

import { randomUUID } from "node:crypto";
import { errors, jwtVerify, SignJWT } from "jose";
import { deriveKey } from "../../protocol/derive-key";

/**
 * Operator sessions: a signed JWT in an httpOnly cookie. The signature proves who issued it;
 * whether it was signed out since is the store's to say (revocation.ts).
 */
export const SESSION_COOKIE = "clawrun_session";
/** Documented in the README: operators sign in again after 12 hours. */
export const SESSION_TTL_SECONDS = 12 * 60 * 60;

/** Keyed by both secrets, so rotating ADMIN_SECRET signs every operator out. */
function sessionKey(clawrunSecret: string, adminSecret: string): Uint8Array {
  return new Uint8Array(deriveKey(`${clawrunSecret}\u0000${adminSecret}`, "operator-session"));
}

export async function issueSession(
  secrets: { clawrunSecret: string; adminSecret: string },
  nowSeconds = Math.floor(Date.now() / 1000),
): Promise<string> {
  return (
    new SignJWT({ role: "operator" })
      .setProtectedHeader({ alg: "HS256" })
      // The session's id: sign-out revokes exactly this session (revocation.ts).
      .setJti(randomUUID())
      .setIssuedAt(nowSeconds)
      .setExpirationTime(nowSeconds + SESSION_TTL_SECONDS)
      .setAudience("clawrun-dashboard")
      .sign(sessionKey(secrets.clawrunSecret, secrets.adminSecret))
  );
}

export type SessionCheck =
  | { ok: true; expiresAt: number; id: string }
  | { ok: false; reason: "missing" | "expired" | "invalid" | "revoked" };

export async function verifySession(
  token: string | undefined,
  secrets: { clawrunSecret: string; adminSecret: string },
  nowSeconds = Math.floor(Date.now() / 1000),
): Promise<SessionCheck> {
  if (!token) return { ok: false, reason: "missing" };
  try {
    const { payload } = await jwtVerify(
      token,
      sessionKey(secrets.clawrunSecret, secrets.adminSecret),
      {
        audience: "clawrun-dashboard",
        algorithms: ["HS256"],
        currentDate: new Date(nowSeconds * 1000),
      },
    );
    // A token without an id cannot be revoked, so it is not accepted (made before sign-out revoked).
    if (payload.role !== "operator" || typeof payload.exp !== "number" || !payload.jti)
      return { ok: false, reason: "invalid" };
    return { ok: true, expiresAt: payload.exp * 1000, id: payload.jti };
  } catch (err) {
    return { ok: false, reason: err instanceof errors.JWTExpired ? "expired" : "invalid" };
  }
}

/** `secure`: the request came over https (see cookie-security.ts); never from NODE_ENV. */
export function sessionCookieOptions(secure: boolean) {
  return {
    httpOnly: true,
    sameSite: "lax" as const,
    secure,
    path: "/",
    maxAge: SESSION_TTL_SECONDS,
  };
}

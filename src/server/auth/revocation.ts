import type { KvStore } from "../store/types";

/**
 * Sign-out revokes the session it ends: its id is kept in the store until the token would
 * have expired anyway, and every check of a session cookie asks for it (one store read). A
 * deny-list rather than a per-deployment version, so signing out on one device leaves the
 * operator's other sessions alone. Both stores expire the entry by themselves.
 */
const revokedKey = (id: string) => `session-revoked:${id}`;

export async function revokeSession(
  kv: KvStore,
  session: { id: string; expiresAt: number },
  now = Date.now(),
): Promise<void> {
  const ttlMs = session.expiresAt - now;
  if (ttlMs > 0) await kv.set(revokedKey(session.id), String(now), ttlMs);
}

export async function isSessionRevoked(kv: KvStore, id: string): Promise<boolean> {
  return (await kv.get(revokedKey(id))) !== null;
}

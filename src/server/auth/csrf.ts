/**
 * CSRF for cookie-authenticated mutations: the browser's Origin (or, failing that, Referer)
 * must be one of ours. SameSite=Lax already blocks most cross-site POSTs; this closes the rest.
 */
export type OriginCheck = { ok: true } | { ok: false; reason: string };

export function checkOrigin(
  headers: { get(name: string): string | null },
  allowedOrigins: readonly string[],
): OriginCheck {
  const origin = headers.get("origin") ?? originOf(headers.get("referer"));
  if (!origin)
    return { ok: false, reason: "missing Origin header on a cookie-authenticated request" };
  if (origin === "null" || !allowedOrigins.includes(origin)) {
    return { ok: false, reason: `Origin ${origin} is not allowed` };
  }
  return { ok: true };
}

/** Our own origins: the URL the request came in on (Host as seen by the server) and the public URL. */
export function allowedOrigins(
  requestUrl: string,
  host: string | null,
  publicUrl: string | null,
): string[] {
  const list = new Set<string>();
  const url = new URL(requestUrl);
  list.add(url.origin);
  if (host) list.add(`${url.protocol}//${host}`);
  const pub = originOf(publicUrl);
  if (pub) list.add(pub);
  return [...list];
}

function originOf(url: string | null): string | null {
  if (!url) return null;
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}

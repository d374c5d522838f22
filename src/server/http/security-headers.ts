/**
 * The browser-facing security headers (issue 22 #8). Pure, so proxy.ts and next.config.ts
 * share one definition and a unit test can read it.
 */

/** Sent with every response, pages and API alike (next.config.ts `headers()`). */
export const STATIC_SECURITY_HEADERS: readonly { key: string; value: string }[] = [
  // The dashboard is never meant to be framed (clickjacking); frame-ancestors says it to CSP.
  { key: "X-Frame-Options", value: "DENY" },
  { key: "X-Content-Type-Options", value: "nosniff" },
  // Links to the docs or a platform never carry the dashboard's path or query.
  { key: "Referrer-Policy", value: "strict-origin-when-cross-origin" },
];

/** A fresh, unguessable nonce for one page view. */
export function newNonce(): string {
  return btoa(crypto.randomUUID());
}

/**
 * The dashboard's Content-Security-Policy for one page view. Scripts run only with this
 * request's nonce, which Next.js puts on its own scripts ('strict-dynamic' lets those load
 * their chunks). `next dev` evaluates code for its overlay and stack traces: 'unsafe-eval'
 * there only. Styles allow inline because React renders `style` attributes (progress bars),
 * which a nonce cannot cover; a style cannot run code. No upgrade-insecure-requests: the
 * local dashboard is served over plain http on a LAN.
 */
export function contentSecurityPolicy(nonce: string, dev: boolean): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${dev ? " 'unsafe-eval'" : ""}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

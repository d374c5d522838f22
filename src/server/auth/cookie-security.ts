/**
 * Pure: whether the browser reached us over https, so the session cookie may be marked
 * Secure. A Secure cookie sent over plain http is dropped by the browser, and the operator
 * loops back to the sign-in page; so the flag follows the request, not NODE_ENV. A proxy
 * that terminates TLS (Vercel, nginx) says so in x-forwarded-proto.
 */
export function requestIsHttps(
  url: string,
  headers: { get(name: string): string | null },
): boolean {
  const forwarded = headers.get("x-forwarded-proto")?.split(",")[0]?.trim().toLowerCase();
  if (forwarded) return forwarded === "https";
  return new URL(url).protocol === "https:";
}

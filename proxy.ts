import { type NextRequest, NextResponse } from "next/server";
import { contentSecurityPolicy, newNonce } from "./src/server/http/security-headers";

/**
 * Gives every page view its Content-Security-Policy with a fresh nonce. The policy goes on
 * the request too: Next.js reads the nonce from it and puts it on its own scripts
 * (docs: "How to set a Content Security Policy"). The other security headers come from
 * next.config.ts for every response.
 */
export function proxy(request: NextRequest): NextResponse {
  const csp = contentSecurityPolicy(newNonce(), process.env.NODE_ENV === "development");
  const headers = new Headers(request.headers);
  headers.set("content-security-policy", csp);
  const response = NextResponse.next({ request: { headers } });
  response.headers.set("content-security-policy", csp);
  return response;
}

export const config = {
  // Pages only. API routes render no HTML, and passing them through the proxy would make
  // Next buffer their bodies for it (the sign-in's 4 KB cap must hold before any reading).
  matcher: [
    {
      source: "/((?!api/|_next/static|_next/image|icon.svg|favicon.ico).*)",
      missing: [
        { type: "header", key: "next-router-prefetch" },
        { type: "header", key: "purpose", value: "prefetch" },
      ],
    },
  ],
};

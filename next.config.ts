import type { NextConfig } from "next";
import { STATIC_SECURITY_HEADERS } from "./src/server/http/security-headers";

const nextConfig: NextConfig = {
  // Native and worker-using packages must be loaded by Node, not bundled.
  serverExternalPackages: ["better-sqlite3", "pino", "pino-pretty", "ioredis"],
  // The in-sandbox programs are read from disk at run time; ship them with every function.
  outputFileTracingIncludes: { "/**": ["./build/bundles/**"] },
  // `npm run typecheck` (tsc --noEmit over the whole repo) runs in CI; the build need not repeat it.
  typescript: { ignoreBuildErrors: true },
  poweredByHeader: false,
  reactStrictMode: true,
  // Frame, sniffing and referrer rules for every response; the nonce CSP is set by proxy.ts.
  headers: async () => [{ source: "/:path*", headers: [...STATIC_SECURITY_HEADERS] }],
};

export default nextConfig;

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
  // Several agents (docs/several-agents.md): an agent's operator API and its sandbox's calls
  // (heartbeats, model gateway, scheduled wakes) reach the same routes under its name, which
  // the route wrapper reads from the path (src/server/http/agent-of-request.ts).
  rewrites: async () => ({
    beforeFiles: [
      { source: "/api/agents/:agent", destination: "/api/sandbox?agent=:agent" },
      { source: "/api/agents/:agent/:path+", destination: "/api/:path+?agent=:agent" },
      { source: "/agents/:agent/api/:path+", destination: "/api/:path+?agent=:agent" },
    ],
    afterFiles: [],
    fallback: [],
  }),
};

export default nextConfig;

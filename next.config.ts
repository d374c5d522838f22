import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  // Native and worker-using packages must be loaded by Node, not bundled.
  serverExternalPackages: ["better-sqlite3", "pino", "pino-pretty", "ioredis"],
  poweredByHeader: false,
  reactStrictMode: true,
};

export default nextConfig;

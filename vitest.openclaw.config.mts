import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

/**
 * The OpenClaw suite (tests/openclaw): the real openclaw package in a local sandbox, minutes
 * per test, so not part of `npm test`; run with `npm run test:openclaw` (CI runs it after
 * `npm test`). The npm cache lives outside the repo (tests/openclaw/openclaw-cache.ts).
 */
export default defineConfig({
  resolve: { alias: { "@": fileURLToPath(new URL(".", import.meta.url)) } },
  test: {
    include: ["tests/openclaw/**/*.test.ts"],
    environment: "node",
    globalSetup: ["tests/global-setup.ts"],
    pool: "forks",
    fileParallelism: false,
    testTimeout: 10 * 60_000,
    hookTimeout: 5 * 60_000,
    reporters: ["default"],
  },
});

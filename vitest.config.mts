import { fileURLToPath } from "node:url";
import { configDefaults, defineConfig } from "vitest/config";

export default defineConfig({
  resolve: { alias: { "@": fileURLToPath(new URL(".", import.meta.url)) } },
  test: {
    include: ["src/**/*.test.ts", "tests/**/*.test.ts", "app/**/*.test.ts"],
    // The OpenClaw suite installs the real package (minutes): vitest.openclaw.config.mts.
    exclude: [...configDefaults.exclude, "tests/openclaw/**"],
    environment: "node",
    globalSetup: ["tests/global-setup.ts"],
    pool: "forks",
    testTimeout: 30_000,
    hookTimeout: 120_000,
    // Real processes and servers: keep output readable and give slow CI machines room.
    reporters: ["default"],
  },
});

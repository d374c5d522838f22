import { fileURLToPath } from "node:url";
import { configDefaults, defineConfig } from "vitest/config";
import ServerLastSequencer from "./tests/support/server-last-sequencer.mjs";

export default defineConfig({
  resolve: { alias: { "@": fileURLToPath(new URL(".", import.meta.url)) } },
  test: {
    include: ["src/**/*.test.ts", "tests/**/*.test.ts", "app/**/*.test.ts"],
    // The OpenClaw suite installs the real package (minutes): vitest.openclaw.config.mts.
    exclude: [...configDefaults.exclude, "tests/openclaw/**"],
    environment: "node",
    globalSetup: ["tests/global-setup.ts"],
    // The files that need no server first, while the production build runs in the background.
    sequence: { sequencer: ServerLastSequencer },
    pool: "forks",
    // A worker process runs file after file: every file starts and stops its own servers,
    // sandboxes and stores, and restores what it changes in process.env. A fresh process per
    // file spent more importing than testing (import 35 s of the unit tests' 84 s; 74 s for
    // the 91 system files, 26 s without).
    isolate: false,
    // Most files wait on child processes, servers and Chromium rather than compute: vitest's
    // default (cores − 1 workers) ran one file at a time on a 2-core machine, so a run took the
    // sum of all files. Every file uses its own ports, state dirs and stores, so they can overlap.
    // Two, not four: four drove the load to ~11 on a 2-core machine with nothing else running,
    // and timing-bound fault tests failed there (3 of 1964 tests in an 11.5 min run).
    // CLAWRUN_TEST_WORKERS overrides it (e.g. 1 to see a file's time alone).
    maxWorkers: Number(process.env.CLAWRUN_TEST_WORKERS) || 2,
    testTimeout: 30_000,
    hookTimeout: 120_000,
    // Real processes and servers: keep output readable and give slow CI machines room.
    reporters: ["default"],
  },
});

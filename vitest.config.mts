import { fileURLToPath } from "node:url";
import { configDefaults, defineConfig } from "vitest/config";
import ServerLastSequencer from "./tests/support/server-last-sequencer.mjs";

const alias = { "@": fileURLToPath(new URL(".", import.meta.url)) };
/** Each project's own: an inline project does not inherit the root's test options. Room for
 * slow CI machines: real processes and servers. */
const timeouts = { testTimeout: 30_000, hookTimeout: 120_000 };

export default defineConfig({
  resolve: { alias },
  test: {
    globalSetup: ["tests/global-setup.ts"],
    // The files that need no server first, while the production build runs in the background.
    sequence: { sequencer: ServerLastSequencer },
    // Most files wait on child processes, servers and Chromium rather than compute: vitest's
    // default (cores − 1 workers) ran one file at a time on a 2-core machine, so a run took the
    // sum of all files. Every file uses its own ports, state dirs and stores, so they can overlap.
    // Two, not four: four drove the load to ~11 on a 2-core machine with nothing else running,
    // and timing-bound fault tests failed there (3 of 1964 tests in an 11.5 min run).
    // CLAWRUN_TEST_WORKERS overrides it (e.g. 1 to see a file's time alone).
    maxWorkers: Number(process.env.CLAWRUN_TEST_WORKERS) || 2,
    // Real processes and servers: keep output readable.
    reporters: ["default"],
    projects: [
      {
        // Unit tests beside the code: pure modules and in-process fakes, so one worker process
        // runs file after file. A fresh process per file cost more than the tests (import
        // 35 s of 84 s for these 159 files; 41 s in all without).
        resolve: { alias },
        test: {
          name: "unit",
          include: ["src/**/*.test.ts", "app/**/*.test.ts"],
          environment: "node",
          // Clock formatting is asserted in UTC; set for the run, since one worker runs every file.
          env: { TZ: "UTC" },
          pool: "forks",
          isolate: false,
          ...timeouts,
        },
      },
      {
        // Real servers, sandboxes, browsers and signals: a fresh process per file. Without
        // one (import 74 → 26 s) a full run failed once in a way no isolated run has
        // (daemon-and-clock's wake, after unit files in the same worker): kept apart.
        resolve: { alias },
        test: {
          name: "system",
          include: ["tests/**/*.test.ts"],
          // The OpenClaw suite installs the real package (minutes): vitest.openclaw.config.mts.
          exclude: [...configDefaults.exclude, "tests/openclaw/**"],
          environment: "node",
          pool: "forks",
          ...timeouts,
        },
      },
    ],
  },
});

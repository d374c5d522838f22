import { execFileSync } from "node:child_process";
import type { TestProject } from "vitest/node";
import { launchBrowserServer } from "./support/browser";
import { startNextBuild } from "./support/next-build";

/**
 * Tests provision the real in-sandbox bundles, and the HTTP/browser tests run the real
 * production server: the bundles are built before any test runs, the production build in the
 * background while the tests that need no server run (the sequencer puts them first; a server
 * test waits for the build in startClawrun). The browser tests share one Chromium, launched
 * here (a launch per file cost a cold start each).
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  execFileSync(process.execPath, ["--import", "tsx", "scripts/bundle.ts"], { stdio: "inherit" });
  // A run of unit and contract tests alone may skip the production build (it takes minutes),
  // and with it the browser: the browser tests need the build.
  if (process.env.CLAWRUN_TEST_SKIP_NEXT_BUILD === "1") {
    project.provide("chromiumWsEndpoint", "");
    return async () => undefined;
  }
  const built = startNextBuild();
  const browser = await launchBrowserServer();
  project.provide("chromiumWsEndpoint", browser.wsEndpoint());
  return async () => {
    await browser.close();
    await built; // a run of only server-less files still leaves a whole build behind
  };
}

import { execFileSync } from "node:child_process";
import type { TestProject } from "vitest/node";
import { launchBrowserServer } from "./support/browser";
import { ensureNextBuild } from "./support/next-build";

/**
 * Tests provision the real in-sandbox bundles, and the HTTP/browser tests run the real
 * production server: build both once before any test runs. The browser tests share one
 * Chromium, launched here (a launch per file cost a cold start each).
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  execFileSync(process.execPath, ["--import", "tsx", "scripts/bundle.ts"], { stdio: "inherit" });
  // A run of unit and contract tests alone may skip the production build (it takes minutes),
  // and with it the browser: the browser tests need the build.
  if (process.env.CLAWRUN_TEST_SKIP_NEXT_BUILD === "1") {
    project.provide("chromiumWsEndpoint", "");
    return async () => undefined;
  }
  ensureNextBuild();
  const browser = await launchBrowserServer();
  project.provide("chromiumWsEndpoint", browser.wsEndpoint());
  return () => browser.close();
}

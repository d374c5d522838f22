import { execFileSync } from "node:child_process";
import { ensureNextBuild } from "./support/next-build";

/**
 * Tests provision the real in-sandbox bundles, and the HTTP/browser tests run the real
 * production server: build both once before any test runs.
 */
export default function setup(): void {
  execFileSync(process.execPath, ["--import", "tsx", "scripts/bundle.ts"], { stdio: "inherit" });
  // A run of unit and contract tests alone may skip the production build (it takes minutes).
  if (process.env.CLAWRUN_TEST_SKIP_NEXT_BUILD !== "1") ensureNextBuild();
}

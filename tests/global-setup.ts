import { execFileSync } from "node:child_process";

/** Tests provision the real in-sandbox bundles, so build them once before any test runs. */
export default function setup(): void {
  execFileSync(process.execPath, ["--import", "tsx", "scripts/bundle.ts"], { stdio: "inherit" });
}

/**
 * Runs before `next dev` / `next start`: fails fast with a readable message on a broken
 * clawrun.json or environment (exit 1, no stack trace), creates local secrets on first run
 * and announces the operator secret once, and builds the in-sandbox bundles.
 * `clawrun config check` runs the same validation (src/server/setup/startup-check.ts).
 */
import { execFileSync } from "node:child_process";
import { resolveSecrets } from "../src/config/secrets";
import { checkStartup, startupProblems } from "../src/server/setup/startup-check";

function fail(lines: string[]): never {
  console.error("\nClawRun cannot start:\n");
  for (const line of lines) console.error(`  ${line}`);
  console.error("");
  process.exit(1);
}

const check = checkStartup(process.env, process.cwd());
if (!check.ok) fail(check.problems);
try {
  const { secrets, generated, file } = resolveSecrets(check.env);
  console.log(
    check.configPath
      ? `clawrun: using ${check.configPath}`
      : "clawrun: no clawrun.json, using defaults (echo agent, local sandboxes)",
  );
  if (generated.includes("ADMIN_SECRET")) {
    console.log("\n  First run: generated ClawRun's secrets.");
    console.log(`  Operator sign-in secret (ADMIN_SECRET): ${secrets.ADMIN_SECRET}`);
    console.log(`  Kept in ${file} (mode 600); set ADMIN_SECRET to use your own.\n`);
  }
  execFileSync(process.execPath, ["--import", "tsx", "scripts/bundle.ts"], { stdio: "inherit" });
} catch (err) {
  fail(startupProblems(err));
}

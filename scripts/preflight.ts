/**
 * Runs before `next dev` / `next start`: fails fast with a readable message on a broken
 * clawrun.json or environment (exit 1, no stack trace), creates local secrets on first run
 * and announces the operator secret once, and builds the in-sandbox bundles.
 */
import { execFileSync } from "node:child_process";
import { EnvError, readEnv } from "../src/config/env";
import { ConfigError } from "../src/config/load-config";
import { MissingSecretsError, resolveSecrets } from "../src/config/secrets";
import { loadClawrunConfig } from "../src/server/config-schema";

function fail(lines: string[]): never {
  console.error("\nClawRun cannot start:\n");
  for (const line of lines) console.error(`  ${line}`);
  console.error("");
  process.exit(1);
}

try {
  const env = readEnv();
  const { path } = loadClawrunConfig(env.configPath);
  const { secrets, generated, file } = resolveSecrets(env);
  console.log(
    path
      ? `clawrun: using ${path}`
      : "clawrun: no clawrun.json, using defaults (echo agent, local sandboxes)",
  );
  if (generated.includes("ADMIN_SECRET")) {
    console.log("\n  First run: generated ClawRun's secrets.");
    console.log(`  Operator sign-in secret (ADMIN_SECRET): ${secrets.ADMIN_SECRET}`);
    console.log(`  Kept in ${file} (mode 600); set ADMIN_SECRET to use your own.\n`);
  }
  execFileSync(process.execPath, ["--import", "tsx", "scripts/bundle.ts"], { stdio: "inherit" });
} catch (err) {
  if (err instanceof ConfigError || err instanceof EnvError) fail(err.problems);
  if (err instanceof MissingSecretsError) fail([err.message]);
  fail([err instanceof Error ? err.message : String(err)]);
}

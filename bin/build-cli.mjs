/**
 * Builds the operator CLI (src/cli/main.ts) into one ESM file with esbuild; npm packages stay
 * imports, resolved from node_modules at run time (production dependencies only).
 * Plain JavaScript so bin/clawrun.mjs can rebuild it without tsx; scripts/bundle.ts calls it too.
 */
import { renameSync } from "node:fs";
import { join } from "node:path";

export const CLI_BUNDLE = join("build", "cli", "clawrun.mjs");

export async function buildCli(root) {
  let esbuild;
  try {
    esbuild = await import("esbuild");
  } catch {
    throw new Error(
      `${join(root, CLI_BUNDLE)} is missing or older than src/, and esbuild (a dev dependency) is not installed: run "npm ci", or "npm run build" where it is`,
    );
  }
  const outfile = join(root, CLI_BUNDLE);
  // Concurrent first runs each build their own file and rename it over: never half a bundle.
  const tmp = `${outfile}.${process.pid}.tmp.mjs`;
  await esbuild.build({
    absWorkingDir: root,
    entryPoints: ["src/cli/main.ts"],
    outfile: tmp,
    bundle: true,
    platform: "node",
    target: "node20",
    format: "esm",
    packages: "external",
    sourcemap: false,
    legalComments: "none",
    logLevel: "warning",
  });
  renameSync(tmp, outfile);
  return outfile;
}

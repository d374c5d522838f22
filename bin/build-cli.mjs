/**
 * Builds the operator CLI (src/cli/main.ts) with esbuild into build/cli/: an ESM entry and
 * content-hashed chunks, so the heavy parts (the server's modules for `config check` and
 * `channels`) load only when used. npm packages stay imports, resolved from node_modules at
 * run time (production dependencies only), except zod: every command loads it, and loading
 * its ~100 module files took more of a start than the whole rest of the CLI. Plain JavaScript
 * so bin/clawrun.mjs can rebuild it without tsx; scripts/bundle.ts calls it too.
 */
import { mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export const CLI_BUNDLE = join("build", "cli", "clawrun.mjs");
/**
 * The files the bundle was built from (its own sources and the bundled packages' package.json):
 * the launcher checks only these for changes instead of walking all of src/ at every start.
 */
export const CLI_INPUTS = join("build", "cli", "inputs.json");

/** Packages bundled into the CLI rather than imported from node_modules at run time. */
const BUNDLED = /^zod(\/|$)/;

/** `packages: "external"`, but for the packages in BUNDLED. */
const externalPackages = {
  name: "external-packages",
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, (args) =>
      BUNDLED.test(args.path) ? undefined : { path: args.path, external: true },
    );
  },
};

/** The bundle's inputs, as the launcher checks them: sources as they are, packages by their package.json. */
function inputsOf(metafile) {
  const inputs = new Set(["package.json"]);
  for (const path of Object.keys(metafile.inputs)) {
    const pkg = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(path);
    inputs.add(pkg ? `${pkg[1]}/package.json` : path);
  }
  return [...inputs].sort();
}

export async function buildCli(root) {
  let esbuild;
  try {
    esbuild = await import("esbuild");
  } catch {
    throw new Error(
      `${join(root, CLI_BUNDLE)} is missing or older than src/, and esbuild (a dev dependency) is not installed: run "npm ci", or "npm run build" where it is`,
    );
  }
  const outdir = join(root, "build", "cli");
  // Each build writes its own directory, then moves the chunks (named by their content, so
  // a concurrent run never sees one change) and the entry last: never half a CLI.
  const tmp = join(root, "build", `cli.${process.pid}.tmp`);
  try {
    const result = await esbuild.build({
      absWorkingDir: root,
      entryPoints: { clawrun: "src/cli/main.ts" },
      outdir: tmp,
      outExtension: { ".js": ".mjs" },
      chunkNames: "chunks/[name]-[hash]",
      bundle: true,
      splitting: true,
      platform: "node",
      target: "node20",
      format: "esm",
      plugins: [externalPackages],
      metafile: true,
      sourcemap: false,
      legalComments: "none",
      logLevel: "warning",
    });
    writeFileSync(join(tmp, "inputs.json"), `${JSON.stringify(inputsOf(result.metafile))}\n`);
    mkdirSync(join(outdir, "chunks"), { recursive: true });
    const fresh = readdirSync(join(tmp, "chunks"));
    for (const chunk of fresh) {
      renameSync(join(tmp, "chunks", chunk), join(outdir, "chunks", chunk));
    }
    // The inputs before the entry: an entry never stands beside the inputs of an older build.
    renameSync(join(tmp, "inputs.json"), join(outdir, "inputs.json"));
    renameSync(join(tmp, "clawrun.mjs"), join(outdir, "clawrun.mjs"));
    removeOldChunks(join(outdir, "chunks"), new Set(fresh));
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  return join(outdir, "clawrun.mjs");
}

/** Chunks of earlier builds, once no run that started with them can still need them. */
function removeOldChunks(dir, keep) {
  const before = Date.now() - 60 * 60_000;
  for (const chunk of readdirSync(dir)) {
    if (keep.has(chunk)) continue;
    try {
      if (statSync(join(dir, chunk)).mtimeMs < before) rmSync(join(dir, chunk), { force: true });
    } catch {
      // another build removed it first
    }
  }
}

/**
 * Bundles the code that runs INSIDE sandboxes into single files with no runtime
 * dependencies: the server copies them into each sandbox and runs them with `node`.
 * Also builds the operator CLI (bin/clawrun.mjs runs it; docs/cli.md).
 */
import { build } from "esbuild";
import { buildCli } from "../bin/build-cli.mjs";
import { BUNDLES, bundleDir } from "../src/server/bundles";

async function main(): Promise<void> {
  const outdir = bundleDir();
  await Promise.all([
    buildCli(process.cwd()),
    ...Object.entries(BUNDLES).map(([, b]) =>
      build({
        entryPoints: [b.entry],
        outfile: `${outdir}/${b.file}`,
        bundle: true,
        platform: "node",
        target: "node20",
        format: "cjs",
        minify: true,
        sourcemap: false,
        legalComments: "none",
        logLevel: "warning",
      }),
    ),
  ]);
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});

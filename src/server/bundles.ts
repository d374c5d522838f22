import { readFile } from "node:fs/promises";
import { join } from "node:path";

/** Single-file programs built by scripts/bundle.ts and provisioned into sandboxes. */
export const BUNDLES = {
  sidecar: { entry: "src/sidecar/main.ts", file: "sidecar.js" },
  localWatchdog: {
    entry: "src/server/providers/local/watchdog.ts",
    file: "local-watchdog.js",
  },
  localWarmNode: {
    entry: "src/server/providers/local/warm-node.ts",
    file: "local-warm-node.js",
  },
  agentEcho: { entry: "src/agent-echo/main.ts", file: "agent-echo.js" },
} as const;

export type BundleName = keyof typeof BUNDLES;

export function bundleDir(): string {
  return join(process.cwd(), "build", "bundles");
}

export function bundlePath(name: BundleName): string {
  return join(bundleDir(), BUNDLES[name].file);
}

export async function readBundle(name: BundleName): Promise<Buffer> {
  try {
    return await readFile(bundlePath(name));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") {
      throw new Error(
        `${bundlePath(name)} is missing: run "npm run bundle" (npm run dev/build do it for you)`,
      );
    }
    throw err;
  }
}

import { mkdirSync } from "node:fs";

/**
 * The npm cache the OpenClaw suite and bench install from (outside the repo, ~275 MB): the
 * first run fills it from the npm registry, later runs reuse it. CLAWRUN_OPENCLAW_NPM_CACHE
 * moves it (CI can point it at a cached directory).
 */
export function openclawNpmCache(): string {
  const dir = process.env.CLAWRUN_OPENCLAW_NPM_CACHE || "/work/.cache/npm-openclaw";
  if (!dir.startsWith("/"))
    throw new Error(`CLAWRUN_OPENCLAW_NPM_CACHE: expected an absolute path, got "${dir}"`);
  mkdirSync(dir, { recursive: true });
  return dir;
}

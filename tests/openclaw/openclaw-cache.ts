import { mkdirSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join } from "node:path";

/**
 * Pure: where the OpenClaw npm cache goes when nobody says otherwise — the user's cache
 * directory (`$XDG_CACHE_HOME`, else `~/.cache`) under `clawrun/`. The XDG base-directory
 * rules ignore a relative `$XDG_CACHE_HOME`, and so do we: it would put the cache inside
 * whatever directory the command runs from, i.e. usually the checkout.
 */
export function defaultOpenclawNpmCache(
  env: Readonly<Record<string, string | undefined>> = process.env,
  home: string = homedir(),
): string {
  const xdg = env.XDG_CACHE_HOME;
  const base = xdg && isAbsolute(xdg) ? xdg : join(home, ".cache");
  return join(base, "clawrun", "npm-openclaw");
}

/**
 * The npm cache the OpenClaw suite, bench and try-out script install from (outside the repo,
 * ~275 MB): the first run fills it from the npm registry, later runs reuse it.
 * CLAWRUN_OPENCLAW_NPM_CACHE moves it (CI can point it at a cached directory).
 */
export function openclawNpmCache(
  env: Readonly<Record<string, string | undefined>> = process.env,
): string {
  const dir = env.CLAWRUN_OPENCLAW_NPM_CACHE || defaultOpenclawNpmCache(env);
  // The sandbox runs npm from its own root, so a relative path would point somewhere else.
  if (!isAbsolute(dir))
    throw new Error(`CLAWRUN_OPENCLAW_NPM_CACHE: expected an absolute path, got "${dir}"`);
  mkdirSync(dir, { recursive: true });
  return dir;
}

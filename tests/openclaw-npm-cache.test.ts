import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { defaultOpenclawNpmCache, openclawNpmCache } from "./openclaw/openclaw-cache";

// The OpenClaw suite itself (tests/openclaw/) is not part of `npm test`; its cache helper is.
const checkout = resolve(__dirname, "..");

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe("the OpenClaw npm cache", () => {
  it("defaults to the user's cache directory under clawrun/", () => {
    expect(defaultOpenclawNpmCache({}, "/home/ada")).toBe("/home/ada/.cache/clawrun/npm-openclaw");
    expect(defaultOpenclawNpmCache({ XDG_CACHE_HOME: "/srv/cache" }, "/home/ada")).toBe(
      "/srv/cache/clawrun/npm-openclaw",
    );
    // A relative XDG_CACHE_HOME is ignored (XDG rules): it would land in the working directory.
    expect(defaultOpenclawNpmCache({ XDG_CACHE_HOME: "cache" }, "/home/ada")).toBe(
      "/home/ada/.cache/clawrun/npm-openclaw",
    );
  });

  it("never lies inside the checkout, whatever directory it is computed from", () => {
    for (const env of [{}, { XDG_CACHE_HOME: "" }, { XDG_CACHE_HOME: "." }]) {
      expect(defaultOpenclawNpmCache(env)).not.toContain(checkout);
    }
    expect(defaultOpenclawNpmCache({})).not.toContain(process.cwd());
  });

  it("honours CLAWRUN_OPENCLAW_NPM_CACHE, creates it, and refuses a relative one", () => {
    const dir = join(mkdtempSync(join(tmpdir(), "oc-cache-")), "npm");
    dirs.push(dir);
    expect(openclawNpmCache({ CLAWRUN_OPENCLAW_NPM_CACHE: dir })).toBe(dir);
    expect(statSync(dir).isDirectory()).toBe(true);
    expect(() => openclawNpmCache({ CLAWRUN_OPENCLAW_NPM_CACHE: "rel/cache" })).toThrow(
      /expected an absolute path/,
    );
  });

  it("no tracked file names the absolute path of this checkout", () => {
    const files = execFileSync("git", ["ls-files", "-z"], { cwd: checkout, encoding: "utf8" })
      .split("\0")
      .filter((f) => /\.(ts|tsx|mts|mjs|js|json|jsonc|md|sh|yml|yaml)$/.test(f));
    const naming = files.filter((f) => {
      try {
        return readFileSync(join(checkout, f), "utf8").includes(checkout);
      } catch {
        return false; // listed but deleted in the work tree
      }
    });
    expect(naming).toEqual([]);
  });
});

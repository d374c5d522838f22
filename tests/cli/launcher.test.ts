import { execFile } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import packageJson from "../../package.json";

/**
 * bin/clawrun.mjs, what `npx clawrun` runs: it builds the CLI bundle on first use and again
 * when src/ is newer, and says what to do when it cannot. Each case runs in its own copy of
 * the launcher (src and packages linked), so the repository's own bundle is left alone.
 */

const REPO = resolve(__dirname, "../..");
const roots: string[] = [];

function checkout(opts: { withEsbuild: boolean }): string {
  const root = mkdtempSync(join(tmpdir(), "clawrun-launcher-"));
  roots.push(root);
  mkdirSync(join(root, "bin"));
  for (const f of ["clawrun.mjs", "build-cli.mjs"]) {
    copyFileSync(join(REPO, "bin", f), join(root, "bin", f));
  }
  copyFileSync(join(REPO, "package.json"), join(root, "package.json"));
  symlinkSync(join(REPO, "src"), join(root, "src"));
  mkdirSync(join(root, "node_modules"));
  for (const entry of readdirSync(join(REPO, "node_modules"))) {
    if (entry === "esbuild" && !opts.withEsbuild) continue;
    symlinkSync(join(REPO, "node_modules", entry), join(root, "node_modules", entry));
  }
  return root;
}

const launch = (root: string, args: string[]) =>
  promisify(execFile)(process.execPath, [join(root, "bin", "clawrun.mjs"), ...args], {
    env: { PATH: process.env.PATH } as unknown as NodeJS.ProcessEnv,
    cwd: root,
  }).then(
    (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
    (e: { code: number; stdout: string; stderr: string }) => ({
      code: e.code,
      stdout: e.stdout,
      stderr: e.stderr,
    }),
  );

const bundleOf = (root: string) => join(root, "build", "cli", "clawrun.mjs");

afterAll(() => {
  for (const r of roots) rmSync(r, { recursive: true, force: true });
});

describe("bin/clawrun.mjs", () => {
  let root: string;
  beforeAll(() => {
    root = checkout({ withEsbuild: true });
  });

  it("builds the bundle on first use (a fresh npm ci) and runs it", async () => {
    expect(existsSync(bundleOf(root))).toBe(false);
    const r = await launch(root, ["--version"]);
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe(`${packageJson.version}\n`);
    expect(existsSync(bundleOf(root))).toBe(true);
  });

  it("rebuilds a bundle older than src/, and leaves a current one alone", async () => {
    utimesSync(bundleOf(root), new Date(1_000_000), new Date(1_000_000));
    expect((await launch(root, ["--version"])).code).toBe(0);
    const rebuilt = statSync(bundleOf(root)).mtimeMs;
    expect(rebuilt).toBeGreaterThan(1_000_000_000);
    expect((await launch(root, ["--version"])).code).toBe(0);
    expect(statSync(bundleOf(root)).mtimeMs).toBe(rebuilt);
  });

  it("checks the files the bundle was built from (build/cli/inputs.json): one gone is a change", async () => {
    const inputsFile = join(root, "build", "cli", "inputs.json");
    const inputs = JSON.parse(readFileSync(inputsFile, "utf8")) as string[];
    // (Relative to the checkout; this one's src and node_modules are links, so via their targets.)
    const listed = (path: string) => inputs.some((i) => i.endsWith(path));
    expect(listed("src/cli/main.ts")).toBe(true);
    expect(listed("node_modules/zod/package.json")).toBe(true); // bundled, so checked too
    expect(inputs.some((i) => i.includes("src/sidecar/"))).toBe(false); // not part of the CLI
    writeFileSync(inputsFile, JSON.stringify([...inputs, "src/cli/moved-away.ts"]));
    const before = statSync(bundleOf(root)).mtimeMs;
    expect((await launch(root, ["--version"])).code).toBe(0);
    expect(statSync(bundleOf(root)).mtimeMs).toBeGreaterThan(before);
    expect(JSON.parse(readFileSync(inputsFile, "utf8"))).toEqual(inputs);
  });

  it("without esbuild: says what to do when there is no bundle, runs a stale one with a warning", async () => {
    const bare = checkout({ withEsbuild: false });
    const none = await launch(bare, ["status"]);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('esbuild (a dev dependency) is not installed: run "npm ci"');

    mkdirSync(join(bare, "build"), { recursive: true });
    symlinkSync(join(root, "build", "cli"), join(bare, "build", "cli"));
    utimesSync(bundleOf(root), new Date(1_000_000), new Date(1_000_000));
    const stale = await launch(bare, ["--version"]);
    expect(stale.code).toBe(0);
    expect(stale.stdout).toBe(`${packageJson.version}\n`);
    expect(stale.stderr).toContain("warning: could not rebuild the CLI");
  });

  it("is the package's bin, so `npx clawrun` runs it in the project", async () => {
    expect(packageJson.bin).toEqual({ clawrun: "bin/clawrun.mjs" });
    const r = await promisify(execFile)("npx", ["--offline", "clawrun", "help", "wake"], {
      cwd: REPO,
      env: { ...process.env, npm_config_yes: "true" },
    });
    expect(r.stdout).toMatch(/^usage: clawrun wake/);
  });
});

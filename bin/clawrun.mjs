#!/usr/bin/env node
/**
 * `npx clawrun <command>`: runs the bundled operator CLI (docs/cli.md). In a checkout the
 * bundle is (re)built from src/ when missing or older than the sources, so a fresh
 * `npm ci` works and an edit is never run stale; without src/ the shipped bundle runs.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { buildCli, CLI_BUNDLE, CLI_INPUTS } from "./build-cli.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const bundle = join(root, CLI_BUNDLE);

function mtime(path) {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return null;
  }
}

function newestSource(dir) {
  let newest = 0;
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const e of entries) {
    const path = join(dir, e.name);
    if (e.isDirectory()) newest = Math.max(newest, newestSource(path));
    else if (/\.(ts|tsx|json)$/.test(e.name)) newest = Math.max(newest, mtime(path) ?? 0);
  }
  return newest;
}

/**
 * The newest of the files the bundle was built from (build/cli/inputs.json); a missing one
 * counts as changed. Without that list (a bundle from before it existed), all of src/.
 */
function newestInput() {
  let inputs;
  try {
    inputs = JSON.parse(readFileSync(join(root, CLI_INPUTS), "utf8"));
  } catch {
    return Math.max(newestSource(join(root, "src")), mtime(join(root, "package.json")) ?? 0);
  }
  let newest = 0;
  for (const input of inputs) newest = Math.max(newest, mtime(join(root, input)) ?? Infinity);
  return newest;
}

const built = mtime(bundle);
// Only a checkout (src/ present) rebuilds (also when the way it is built changed); an
// installed package runs what it shipped.
const sources =
  mtime(join(root, "src")) === null
    ? 0
    : Math.max(newestInput(), mtime(join(root, "bin", "build-cli.mjs")) ?? 0);
try {
  if (built === null || sources > built) await buildCli(root);
} catch (err) {
  const why = err instanceof Error ? err.message : String(err);
  if (built === null) {
    process.stderr.write(`clawrun: ${why}\n`);
    process.exit(1);
  }
  // A stale bundle still beats none (e.g. an install without dev dependencies).
  process.stderr.write(
    `clawrun: warning: could not rebuild the CLI (${why}); running the existing one\n`,
  );
}
await import(pathToFileURL(bundle).href);

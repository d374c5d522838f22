import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { PathEscapeError } from "../types";
import { isInside, resolveInRoot, rootRelativeParts } from "./sandbox-paths";

describe("isInside", () => {
  it.each([
    ["/r", "/r", true],
    ["/r", "/r/a/b", true],
    ["/r", "/r/..a", true],
    ["/r", "/", false],
    ["/r", "/rx", false],
    ["/r", "/r/../x", false],
  ])("%s contains %s: %s", (root, candidate, expected) => {
    expect(isInside(root, candidate)).toBe(expected);
  });
});

describe("rootRelativeParts", () => {
  it.each([
    ["a/b.txt", ["a", "b.txt"]],
    ["./a//b/", ["a", "b"]],
    ["a/../b", ["a", "..", "b"]],
    ["", []],
    ["/r", []],
    ["/r/a", ["a"]],
    ["/real/r/a", ["a"]],
    ["/r/../x", ["..", "x"]],
  ])("%j → %j", (path, parts) => {
    expect(rootRelativeParts(["/r", "/real/r"], path)).toEqual(parts);
  });

  it.each(["/etc/passwd", "/rx/a", "/", "a\0b"])("rejects %j", (path) => {
    expect(() => rootRelativeParts(["/r", "/real/r"], path)).toThrow(PathEscapeError);
  });
});

describe("resolveInRoot (real symlinks)", () => {
  const base = mkdtempSync(join(tmpdir(), "clawrun-paths-"));
  const root = join(base, "root");
  mkdirSync(join(root, "dir/sub"), { recursive: true });
  writeFileSync(join(root, "dir/file"), "x");
  symlinkSync("dir/sub", join(root, "rel-link"));
  symlinkSync(join(root, "dir"), join(root, "abs-link"));
  symlinkSync("../..", join(root, "dir/sub/up"));
  symlinkSync("loop-b", join(root, "loop-a"));
  symlinkSync("loop-a", join(root, "loop-b"));
  symlinkSync(join(base, "nowhere"), join(root, "dangling-out"));
  symlinkSync("new-file", join(root, "dangling-in"));
  afterAll(() => rmSync(base, { recursive: true, force: true }));

  it.each([
    ["dir/file", "dir/file"],
    ["rel-link/x", "dir/sub/x"],
    ["abs-link/file", "dir/file"],
    ["dir/sub/up/dir", "dir"],
    ["dangling-in", "new-file"],
    ["dir/../dir/./file", "dir/file"],
    ["rel-link/../file", "dir/file"],
    ["not/yet/there.txt", "not/yet/there.txt"],
  ])("%s → <root>/%s", async (path, expected) => {
    expect(await resolveInRoot(root, path)).toBe(join(root, expected));
  });

  it.each(["..", "a/../../x", "dir/sub/up/../x", "dangling-out", "loop-a", "rel-link/../../.."])(
    "rejects %s",
    async (path) => {
      await expect(resolveInRoot(root, path)).rejects.toBeInstanceOf(PathEscapeError);
    },
  );
});

import { lstat, readlink, realpath } from "node:fs/promises";
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import { PathEscapeError } from "../types";

/** Pure: is `candidate` the root itself or below it? Both must be absolute and normalized. */
export function isInside(root: string, candidate: string): boolean {
  const rel = relative(root, candidate);
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
}

/**
 * Pure: the components of `path` below the sandbox root, in order, `..` kept (the walk in
 * resolveInRoot applies them after resolving symlinks, as the kernel would). Relative paths
 * start at the root; absolute ones must start with it (either spelling is accepted: as
 * configured, or with symlinks resolved).
 */
export function rootRelativeParts(roots: readonly string[], path: string): string[] {
  if (path.includes("\0")) throw new PathEscapeError(path);
  let rest = path;
  if (isAbsolute(path)) {
    const root = roots.find((r) => path === r || path.startsWith(r.endsWith(sep) ? r : r + sep));
    if (root === undefined) throw new PathEscapeError(path);
    rest = path.slice(root.length);
  }
  return rest.split(sep).filter((part) => part !== "" && part !== ".");
}

const MAX_SYMLINK_HOPS = 40; // same limit as the kernel's ELOOP

/**
 * Resolves `path` to a real host path inside `root`, following symlinks one component at
 * a time (dangling ones too, since a write would create their target) and rejecting any
 * step that leaves the root. The caller must operate on the returned path, not the input:
 * what was checked is what gets touched. Components that do not exist yet are kept as is.
 */
export async function resolveInRoot(root: string, path: string): Promise<string> {
  const realRoot = await realpath(root);
  const queue = rootRelativeParts([root, realRoot], path);
  let current = realRoot;
  let hops = 0;
  while (queue.length > 0) {
    const part = queue.shift() as string;
    if (part === "." || part === "") continue;
    if (part === "..") {
      current = resolve(current, "..");
      if (!isInside(realRoot, current)) throw new PathEscapeError(path);
      continue;
    }
    const next = join(current, part);
    const stat = await lstat(next).catch((err: NodeJS.ErrnoException) => {
      if (err.code === "ENOENT" || err.code === "ENOTDIR") return null;
      throw err;
    });
    if (!stat?.isSymbolicLink()) {
      current = next;
      continue;
    }
    if (++hops > MAX_SYMLINK_HOPS) throw new PathEscapeError(path);
    const target = await readlink(next);
    if (isAbsolute(target)) {
      // Absolute targets name host paths: they must lead into the (real) root.
      queue.unshift(...rootRelativeParts([realRoot, root], target));
      current = realRoot;
    } else {
      queue.unshift(...target.split(sep));
    }
  }
  return current;
}

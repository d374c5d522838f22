import { posix } from "node:path";
import { PathEscapeError } from "../types";

/**
 * Pure: a path given to the port (relative to the sandbox root, or absolute inside it) as the
 * absolute path the API expects. The check is lexical: symlinks live inside the VM, where they
 * cannot reach this machine, and only the sandbox sees them.
 */
export function resolveSandboxPath(root: string, path: string): string {
  if (path.includes("\0")) throw new PathEscapeError(path);
  const absolute = posix.isAbsolute(path) ? posix.normalize(path) : posix.join(root, path);
  const base = root.endsWith("/") ? root.slice(0, -1) : root;
  const target = absolute.length > 1 && absolute.endsWith("/") ? absolute.slice(0, -1) : absolute;
  if (target !== base && !target.startsWith(`${base}/`)) throw new PathEscapeError(path);
  return target;
}

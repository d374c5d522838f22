import { execFile } from "node:child_process";
import { promisify } from "node:util";

/**
 * Whole-tree operations on a layer directory, with the system's find/sort/sha256sum/chmod:
 * a layer holds tens of thousands of files, which these walk far faster than a Node loop.
 */

const run = promisify(execFile);

/** The manifest inside a layer; not part of its own content hash. */
export const LAYER_MANIFEST = ".clawrun-layer.json";

async function sh(script: string, dir: string, signal?: AbortSignal): Promise<string> {
  const { stdout } = await run("sh", ["-c", script, "sh", dir], {
    env: { PATH: "/usr/bin:/bin", LC_ALL: "C" } as unknown as NodeJS.ProcessEnv,
    maxBuffer: 1024 * 1024,
    ...(signal ? { signal } : {}),
  });
  return stdout.trim();
}

/**
 * What the layer holds: every path with its type, mode and link target, and every regular
 * file's bytes. Any added, removed, edited, re-linked or re-moded file changes it.
 */
export function contentHash(dir: string, signal?: AbortSignal): Promise<string> {
  return sh(
    `cd "$1" && { find . -mindepth 1 ! -path ./${LAYER_MANIFEST} -printf '%P\\t%y\\t%m\\t%l\\n' | sort; ` +
      `find . -type f ! -path ./${LAYER_MANIFEST} -print0 | sort -z | xargs -0 -r sha256sum; } | sha256sum | cut -d' ' -f1`,
    dir,
    signal,
  );
}

/**
 * A cheap stand-in checked on every use: paths, sizes, modes and change times (ctime, which
 * every write, chmod or rename of a file moves and which a user cannot set back). When it
 * differs from the one recorded, the full content hash decides.
 */
export function statFingerprint(dir: string, signal?: AbortSignal): Promise<string> {
  return sh(
    `cd "$1" && find . -mindepth 1 -printf '%P\\t%y\\t%m\\t%s\\t%C@\\n' | sort | sha256sum | cut -d' ' -f1`,
    dir,
    signal,
  );
}

/** Read-only for everyone: sandboxes run as the server's user and must not change a shared layer. */
export async function makeReadOnly(dir: string): Promise<void> {
  await run("chmod", ["-R", "a-w", dir]);
}

/** Removes a (read-only) tree. */
export async function removeTree(dir: string): Promise<void> {
  await run("chmod", ["-R", "u+w", dir]).catch(() => undefined);
  await run("rm", ["-rf", dir]);
}

import { execFile } from "node:child_process";
import { mkdir, readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { promisify } from "node:util";
import { openclawTool } from "../../src/server/agents/openclaw/install-tool";
import { buildChildEnv } from "../../src/sidecar/daemon-env";
import { installTools, type ToolOutcome } from "../../src/sidecar/tools";

const run = promisify(execFile);

/** Installs the OpenClaw tool into `root` exactly as the sidecar does (src/sidecar/tools.ts). */
export async function installOpenClaw(
  root: string,
  npmCacheDir: string,
): Promise<{ outcome: ToolOutcome | undefined; ms: number }> {
  const start = performance.now();
  const outcomes = await installTools({
    tools: [openclawTool({ npmCacheDir })],
    cwd: root,
    env: buildChildEnv({ base: sandboxBaseEnv(root), root }),
    attempts: 1,
    retryDelayMs: 0,
    log: {
      info: (m) => console.log(`  [tools] ${m}`),
      warn: (m) => console.log(`  [tools] ${m}`),
      error: (m) => console.log(`  [tools] ${m}`),
    },
  });
  return { outcome: outcomes.openclaw, ms: performance.now() - start };
}

/** `du -sb` of a path, in bytes. */
export async function duBytes(path: string): Promise<number> {
  const { stdout } = await run("du", ["-sb", path]);
  return Number(stdout.split("\t")[0]);
}

/** The local provider's snapshot format: tar piped through `zstd -T0 -3` (snapshot-archive.ts). */
export async function snapshot(root: string, file: string): Promise<{ bytes: number; ms: number }> {
  const start = performance.now();
  await run(
    "tar",
    [
      "--create",
      "--file",
      file,
      "--directory",
      root,
      "--numeric-owner",
      "--use-compress-program",
      "zstd -T0 -3 -q",
      ".",
    ],
    { maxBuffer: 1 << 22 },
  );
  const ms = performance.now() - start;
  return { bytes: (await stat(file)).size, ms };
}

export async function restore(file: string, dest: string): Promise<number> {
  await mkdir(dest, { recursive: true });
  const start = performance.now();
  await run(
    "tar",
    [
      "--extract",
      "--file",
      file,
      "--directory",
      dest,
      "--preserve-permissions",
      "--numeric-owner",
      "--use-compress-program",
      "zstd -q",
    ],
    { maxBuffer: 1 << 22 },
  );
  return performance.now() - start;
}

/** Files under `root` (outside `skip`) modified after `sinceMs`: what would count as activity. */
export async function modifiedSince(
  root: string,
  sinceMs: number,
  skip: string[],
): Promise<string[]> {
  const found: string[] = [];
  async function walk(rel: string): Promise<void> {
    for (const entry of await readdir(join(root, rel), { withFileTypes: true })) {
      const path = rel === "" ? entry.name : `${rel}/${entry.name}`;
      if (skip.some((s) => path === s || path.startsWith(`${s}/`))) continue;
      if (entry.isDirectory()) await walk(path);
      else {
        const mtime = (await stat(join(root, path)).catch(() => null))?.mtimeMs ?? 0;
        if (mtime > sinceMs) found.push(path);
      }
    }
  }
  await walk("");
  return found.sort();
}

/**
 * What a local-provider sandbox process starts with (src/server/providers/local/commands.ts:
 * PATH, LANG, HOME = root), so the try-out sees the same environment, proxies and CAs included.
 */
export function sandboxBaseEnv(root: string): Record<string, string | undefined> {
  return { PATH: process.env.PATH, LANG: process.env.LANG ?? "C.UTF-8", HOME: root };
}

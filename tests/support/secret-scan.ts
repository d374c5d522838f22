import { execFileSync } from "node:child_process";
import { lstatSync, readdirSync, readFileSync, readlinkSync, realpathSync } from "node:fs";
import { join } from "node:path";

/**
 * Where a secret's value can be found on this machine in and around a local sandbox: its
 * files, its processes' environments and command lines, a snapshot archive. Used to prove the
 * real model key never reaches a sandbox (docs/model-gateway.md).
 */

/** Every regular file under `dir` (symlinks are not followed: a mounted layer is shared). */
export function filesHolding(dir: string, needle: string): string[] {
  const found: string[] = [];
  const walk = (d: string) => {
    for (const name of gone(() => readdirSync(d)) ?? []) {
      const path = join(d, name);
      const st = gone(() => lstatSync(path));
      if (st?.isDirectory()) walk(path);
      else if (st?.isFile() && gone(() => readFileSync(path))?.includes(needle)) found.push(path);
    }
  };
  walk(dir);
  return found;
}

/**
 * A running agent creates and removes files while the scan reads (SQLite's -shm/-journal
 * files): one that vanished between listing and reading holds nothing any more.
 */
function gone<T>(read: () => T): T | null {
  try {
    return read();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw err;
  }
}

/** The processes running inside a local sandbox: those whose working directory is under its root. */
export function sandboxProcesses(root: string): number[] {
  const real = realpathSync(root);
  const pids: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cwd = readlinkSync(`/proc/${name}/cwd`);
      if (cwd === real || cwd.startsWith(`${real}/`)) pids.push(Number(name));
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return pids;
}

/** Which of `pids` hold `needle` in their environment or command line. */
export function processesHolding(pids: number[], needle: string): string[] {
  const found: string[] = [];
  for (const pid of pids) {
    for (const part of ["environ", "cmdline"]) {
      try {
        if (readFileSync(`/proc/${pid}/${part}`).includes(needle)) found.push(`${pid}/${part}`);
      } catch {
        // exited meanwhile
      }
    }
  }
  return found;
}

/** Whether a local snapshot archive (tar.zst or tar.gz) holds `needle` anywhere in its bytes. */
export function archiveHolds(file: string, needle: string): boolean {
  const tool = file.endsWith(".zst")
    ? ["zstd", ["-d", "-q", "-c", file]]
    : ["gzip", ["-d", "-c", file]];
  const bytes = execFileSync(tool[0] as string, tool[1] as string[], {
    maxBuffer: 1024 * 1024 * 1024,
  });
  return bytes.includes(needle);
}

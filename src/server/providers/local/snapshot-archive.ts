import { execFile, spawnSync } from "node:child_process";
import type { SnapshotFormat } from "./sandbox-meta";

/** Pure: the archive file name and tar's compression flags for `format`. */
export function archiveSpec(format: SnapshotFormat) {
  return format === "tar.zst"
    ? {
        file: "archive.tar.zst",
        // -T0: one thread per core, which is most of the speed-up over gzip.
        create: ["--use-compress-program", "zstd -T0 -3 -q"],
        extract: ["--use-compress-program", "zstd -q"], // tar adds -d
      }
    : { file: "archive.tar.gz", create: ["--gzip"], extract: ["--gzip"] };
}

function hasBinary(bin: string, arg = "--version"): boolean {
  const res = spawnSync(bin, [arg], { stdio: "ignore" });
  return res.error === undefined && res.status === 0;
}

let detected: SnapshotFormat | null = null;

/** zstd when its binary is installed (much faster), gzip otherwise. Cached per process. */
export function detectFormat(): SnapshotFormat {
  detected ??= hasBinary("zstd") ? "tar.zst" : "tar.gz";
  return detected;
}

export function tarAvailable(): boolean {
  return hasBinary("tar");
}

function run(args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile("tar", args, { maxBuffer: 4 * 1024 * 1024 }, (err, _stdout, stderr) => {
      if (!err) return resolve();
      const detail = stderr.trim().split("\n").slice(-5).join("; ");
      reject(new Error(`tar ${args[0]} failed (${err.code ?? err.message}): ${detail}`));
    });
  });
}

/**
 * Archives the whole tree under `root` (modes, symlinks, empty directories, numeric owners).
 * Any tar warning that makes it exit non-zero — notably "file changed as we read it" —
 * fails the capture: a snapshot is either consistent or not taken.
 */
export function createArchive(root: string, file: string, format: SnapshotFormat): Promise<void> {
  return run([
    "--create",
    "--file",
    file,
    "--directory",
    root,
    "--numeric-owner",
    ...archiveSpec(format).create,
    ".",
  ]);
}

/** Restores into the existing directory `dest`, keeping the archived permission bits. */
export function extractArchive(file: string, dest: string, format: SnapshotFormat): Promise<void> {
  return run([
    "--extract",
    "--file",
    file,
    "--directory",
    dest,
    "--preserve-permissions",
    "--numeric-owner",
    ...archiveSpec(format).extract,
  ]);
}

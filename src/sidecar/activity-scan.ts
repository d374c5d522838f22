import type { Dirent } from "node:fs";
import { lstat, readdir } from "node:fs/promises";
import { join } from "node:path";

export interface ScanResult {
  /** Newest mtime (epoch ms) among the entries visited; 0 if none. */
  newest: number;
  visited: number;
  /** True when this scan finished a pass over the whole tree. */
  passComplete: boolean;
}

interface Cursor {
  rel: string;
  /** Index of the next entry to visit in this directory (a big directory spans scans). */
  offset: number;
}

/**
 * Fallback when the tree cannot be watched: an mtime scan that visits at most
 * `maxEntries` entries per call and resumes where the previous call stopped, so one call
 * costs a bounded amount however big the workspace is. Creates and writes show in a
 * file's mtime. Deletes and renames show only in the parent directory's mtime, which also
 * moves when the sidecar creates `logs/`; so a directory counts only when its mtime
 * differs from the one seen on the previous pass.
 */
export class BoundedScanner {
  private queue: Cursor[] = [];
  private dirMtimes = new Map<string, number>();
  private seenThisPass = new Map<string, number>();

  constructor(
    private readonly root: string,
    private readonly isIgnored: (rel: string) => boolean,
    private readonly maxEntries: number,
  ) {}

  async scan(): Promise<ScanResult> {
    let newest = 0;
    let visited = 0;
    if (this.queue.length === 0) {
      this.queue.push({ rel: "", offset: 0 });
      newest = this.dirChange("", await this.mtime(""));
      visited++;
    }
    while (this.queue.length > 0 && visited < this.maxEntries) {
      const cursor = this.queue.shift() as Cursor;
      let entries: Dirent[];
      try {
        entries = await readdir(join(this.root, cursor.rel), { withFileTypes: true });
      } catch {
        continue; // removed since it was queued
      }
      let i = cursor.offset;
      for (; i < entries.length && visited < this.maxEntries; i++) {
        const entry = entries[i] as Dirent;
        const rel = cursor.rel === "" ? entry.name : `${cursor.rel}/${entry.name}`;
        if (this.isIgnored(rel)) continue;
        visited++;
        const mtime = await this.mtime(rel);
        if (entry.isDirectory()) {
          newest = Math.max(newest, this.dirChange(rel, mtime));
          this.queue.push({ rel, offset: 0 });
        } else {
          newest = Math.max(newest, mtime);
        }
      }
      if (i < entries.length) this.queue.unshift({ rel: cursor.rel, offset: i });
    }
    const passComplete = this.queue.length === 0;
    if (passComplete) {
      // Directories not seen this pass are gone: forget them.
      this.dirMtimes = this.seenThisPass;
      this.seenThisPass = new Map();
    }
    return { newest, visited, passComplete };
  }

  /** A directory's mtime counts only when it moved since the previous pass. */
  private dirChange(rel: string, mtime: number): number {
    this.seenThisPass.set(rel, mtime);
    const before = this.dirMtimes.get(rel);
    this.dirMtimes.set(rel, mtime);
    return before !== undefined && before !== mtime ? mtime : 0;
  }

  private async mtime(rel: string): Promise<number> {
    try {
      return (await lstat(join(this.root, rel))).mtimeMs;
    } catch {
      return 0;
    }
  }
}

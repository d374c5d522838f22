import { mkdir, open, readdir, rename, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import type { SnapshotInfo } from "../types";
import { SnapshotNotFoundError } from "../types";
import { isSnapshotId, newSnapshotId } from "./ids";
import { pidAlive } from "./proc";
import {
  readJson,
  type SnapshotFormat,
  type SnapshotMeta,
  snapshotMetaSchema,
  writeJsonAtomic,
} from "./sandbox-meta";
import { archiveSpec, createArchive, extractArchive } from "./snapshot-archive";

/** Pure: newest first, ties broken by id (ids are time-sortable) so the order is stable. */
export function newestFirst<T extends { id: string; createdAt: number }>(items: T[]): T[] {
  return [...items].sort((a, b) => b.createdAt - a.createdAt || b.id.localeCompare(a.id));
}

/** Pure: in-progress (`.tmp-`) and being-deleted (`.del-`) entries carry the pid working on them. */
export function workerPidOf(name: string): number | null {
  const m = /^\.(?:tmp|del)-.+-(\d+)$/.exec(name);
  return m ? Number(m[1]) : null;
}

async function fsyncPath(path: string): Promise<void> {
  const handle = await open(path, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * `<dir>/<snapshot id>/{meta.json, archive.tar.*}`. A snapshot is built in a dot-named
 * temp directory and renamed into place in one step, so a crash never lists a half archive.
 */
export class SnapshotStore {
  constructor(readonly dir: string) {}

  async capture(root: string, sourceSandboxId: string, format: SnapshotFormat) {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    const createdAt = Date.now();
    const id = newSnapshotId(createdAt);
    const tmp = join(this.dir, `.tmp-${id}-${process.pid}`);
    await mkdir(tmp);
    try {
      const archive = join(tmp, archiveSpec(format).file);
      await createArchive(root, archive, format);
      await fsyncPath(archive);
      const meta: SnapshotMeta = {
        version: 1,
        id,
        createdAt,
        sourceSandboxId,
        sizeBytes: (await stat(archive)).size,
        format,
      };
      writeJsonAtomic(join(tmp, "meta.json"), meta);
      await fsyncPath(tmp);
      await rename(tmp, join(this.dir, id));
      await fsyncPath(this.dir);
      return meta;
    } catch (err) {
      await rm(tmp, { recursive: true, force: true });
      throw err;
    }
  }

  /** null for an unknown (or malformed) id. */
  get(id: string): SnapshotMeta | null {
    if (!isSnapshotId(id)) return null;
    return readJson(join(this.dir, id, "meta.json"), snapshotMetaSchema);
  }

  async restore(id: string, dest: string): Promise<SnapshotMeta> {
    const meta = this.get(id);
    if (!meta) throw new SnapshotNotFoundError(id);
    const archive = join(this.dir, id, archiveSpec(meta.format).file);
    // An archive deleted by hand is a missing snapshot (the lifecycle waits for "start fresh"),
    // not a passing tar failure worth retrying.
    const present = await stat(archive).then(
      () => true,
      (err: NodeJS.ErrnoException) => {
        if (err.code === "ENOENT") return false;
        throw err;
      },
    );
    if (!present) throw new SnapshotNotFoundError(id);
    await extractArchive(archive, dest, meta.format);
    return meta;
  }

  async list(): Promise<SnapshotInfo[]> {
    const names = await readdir(this.dir).catch((err: NodeJS.ErrnoException) => {
      if (err.code === "ENOENT") return [] as string[];
      throw err;
    });
    await this.sweep(names);
    const metas = names.map((n) => this.get(n)).filter((m): m is SnapshotMeta => m !== null);
    return newestFirst(metas).map(({ id, createdAt, sourceSandboxId, sizeBytes }) => ({
      id,
      createdAt,
      sourceSandboxId,
      sizeBytes,
    }));
  }

  async delete(id: string): Promise<void> {
    if (!this.get(id)) throw new SnapshotNotFoundError(id);
    // Renamed away first, so it disappears from listings at once even if removal is slow.
    const doomed = join(this.dir, `.del-${id}-${process.pid}`);
    try {
      await rename(join(this.dir, id), doomed);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") throw new SnapshotNotFoundError(id);
      throw err;
    }
    await rm(doomed, { recursive: true, force: true });
  }

  /** Removes leftovers of captures or deletions whose process died half-way. */
  private async sweep(names: string[]): Promise<void> {
    for (const name of names) {
      const pid = workerPidOf(name);
      if (pid !== null && !pidAlive(pid)) {
        await rm(join(this.dir, name), { recursive: true, force: true });
      }
    }
  }
}

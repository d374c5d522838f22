import { spawnSync } from "node:child_process";
import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readJson, snapshotMetaSchema } from "./sandbox-meta";
import { createArchive, detectFormat, extractArchive } from "./snapshot-archive";
import { newestFirst, SnapshotStore, workerPidOf } from "./snapshot-store";

const base = mkdtempSync(join(tmpdir(), "clawrun-snapstore-"));
afterAll(() => rmSync(base, { recursive: true, force: true }));

function makeTree(root: string): void {
  mkdirSync(join(root, "bin"), { recursive: true });
  mkdirSync(join(root, "empty/deeper"), { recursive: true });
  writeFileSync(join(root, "bin/run"), "#!/bin/sh\n", { mode: 0o750 });
  writeFileSync(join(root, "notes.txt"), "hello");
  symlinkSync("../notes.txt", join(root, "bin/notes"));
}

function deadPid(): number {
  return Number(spawnSync("sh", ["-c", "echo $$"], { encoding: "utf8" }).stdout);
}

describe("archives", () => {
  // zstd is a test dependency (scripts/ensure-system-deps.sh), so both formats are exercised.
  it.each(["tar.gz", "tar.zst"] as const)(
    "%s keeps content, modes, symlinks and empty directories",
    async (format) => {
      const src = join(base, `src-${format}`);
      const dest = join(base, `dest-${format}`);
      makeTree(src);
      mkdirSync(dest);
      const file = join(base, `a.${format}`);
      await createArchive(src, file, format);
      await extractArchive(file, dest, format);
      expect(readFileSync(join(dest, "notes.txt"), "utf8")).toBe("hello");
      expect(statSync(join(dest, "bin/run")).mode & 0o777).toBe(0o750);
      expect(lstatSync(join(dest, "bin/notes")).isSymbolicLink()).toBe(true);
      expect(readlinkSync(join(dest, "bin/notes"))).toBe("../notes.txt");
      expect(statSync(join(dest, "empty/deeper")).isDirectory()).toBe(true);
    },
  );

  it("fails loudly on a missing source", async () => {
    await expect(
      createArchive(join(base, "nope"), join(base, "x.tar.gz"), "tar.gz"),
    ).rejects.toThrow(/tar --create failed/);
  });
});

describe("SnapshotStore", () => {
  const store = new SnapshotStore(join(base, "snapshots"));

  it("captures atomically, records the format and lists newest first", async () => {
    const root = join(base, "root");
    makeTree(root);
    const a = await store.capture(root, "sbx_a", "tar.gz");
    const b = await store.capture(root, "sbx_b", detectFormat());
    const onDisk = readJson(join(store.dir, b.id, "meta.json"), snapshotMetaSchema);
    expect(onDisk).toMatchObject({ id: b.id, sourceSandboxId: "sbx_b", format: detectFormat() });
    expect(onDisk?.sizeBytes).toBe(
      statSync(join(store.dir, b.id, `archive.${detectFormat()}`)).size,
    );
    expect((await store.list()).map((s) => s.id)).toEqual([b.id, a.id]);
    await store.delete(a.id);
    expect((await store.list()).map((s) => s.id)).toEqual([b.id]);
  });

  it("never lists half-made snapshots and sweeps those whose maker died", async () => {
    const mine = join(store.dir, `.tmp-snap_x-${process.pid}`);
    const orphan = join(store.dir, `.tmp-snap_y-${deadPid()}`);
    mkdirSync(mine, { recursive: true });
    mkdirSync(orphan, { recursive: true });
    const ids = (await store.list()).map((s) => s.id);
    expect(ids.some((id) => id.startsWith("."))).toBe(false);
    expect(statSync(mine).isDirectory()).toBe(true);
    expect(() => statSync(orphan)).toThrow();
  });

  it("treats malformed ids as unknown", () => {
    expect(store.get("../snapshots")).toBeNull();
    expect(store.get("snap_nothere00000000000000")).toBeNull();
  });
});

describe("pure helpers", () => {
  it("orders newest first with ties broken by id", () => {
    const items = [
      { id: "a", createdAt: 1 },
      { id: "c", createdAt: 2 },
      { id: "b", createdAt: 2 },
    ];
    expect(newestFirst(items).map((i) => i.id)).toEqual(["c", "b", "a"]);
  });

  it.each([
    [".tmp-snap_1-123", 123],
    [".del-snap_1-9", 9],
    ["snap_1", null],
    [".tmp-nopid", null],
  ])("workerPidOf(%s) = %s", (name, pid) => {
    expect(workerPidOf(name)).toBe(pid);
  });
});

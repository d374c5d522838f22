import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { freshInstance, message, sleep, state } from "../../../../tests/contracts/store/kit";
import { StoreUnavailableError } from "../types";
import { SCHEMA_VERSION } from "./migrations";
import { SqliteStore } from "./store";

/** sqlite-only behaviour: the file format, migrations, several processes, pruning, busy. */
let dir: string;
let file: string;
const stores: SqliteStore[] = [];
const open = (instance = freshInstance("sqlite"), opts = {}) => {
  const store = new SqliteStore(file, { instance, ...opts });
  stores.push(store);
  return store;
};

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "clawrun-sqlite-"));
  file = join(dir, "state", "store.db");
});
afterEach(async () => {
  await Promise.all(stores.splice(0).map((s) => s.close()));
  await rm(dir, { recursive: true, force: true });
});

function inspect<T>(fn: (db: Database.Database) => T): T {
  const db = new Database(file, { readonly: true });
  try {
    return fn(db);
  } finally {
    db.close();
  }
}

const PER_WORKER = 40;

/** A child process running tests/support/sqlite-store-worker.ts on the shared file. */
function startWorker(instance: string) {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", "tests/support/sqlite-store-worker.ts", file, instance, `${PER_WORKER}`],
    { cwd: process.cwd(), stdio: ["pipe", "pipe", "pipe"] },
  );
  child.stdin.on("error", () => {}); // a worker that already died: its exit reports why
  let out = "";
  let err = "";
  let markReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => {
    markReady = resolve;
  });
  child.stdout.on("data", (d: Buffer) => {
    out += d.toString();
    if (out.startsWith("ready\n")) markReady();
  });
  child.stderr.on("data", (d: Buffer) => {
    err += d.toString();
  });
  const done = new Promise<{ conflicts: number; lock: boolean; duplicate: boolean }>(
    (resolve, reject) => {
      child.once("exit", (code) => {
        if (code !== 0) return reject(new Error(`worker exited ${code}: ${err}`));
        resolve(JSON.parse(out.slice("ready\n".length)));
      });
    },
  );
  // A worker that dies before "ready" must fail the test, not hang it.
  void done.catch(() => markReady());
  return { ready, done, go: () => child.stdin.end("go\n") };
}

describe("sqlite adapter", () => {
  it("creates the file in WAL mode at the current schema version, every table scoped by instance", async () => {
    await open().ping();
    inspect((db) => {
      expect(db.pragma("user_version", { simple: true })).toBe(SCHEMA_VERSION);
      expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
      const tables = db
        .prepare(`SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`)
        .all() as { name: string }[];
      expect(tables.length).toBeGreaterThan(5);
      for (const { name } of tables) {
        const columns = db.pragma(`table_info(${name})`) as { name: string }[];
        expect(
          columns.map((c) => c.name),
          name,
        ).toContain("instance");
      }
    });
  });

  it("keeps data across reopen without migrating again", async () => {
    const instance = freshInstance("reopen");
    await open(instance).state.compareAndSet(0, state());
    await stores[0]?.close();
    expect(await open(instance).state.get()).toEqual({ version: 1, value: state() });
  });

  it("refuses a file written by a newer schema, leaving it untouched", async () => {
    await open().ping();
    const db = new Database(file);
    db.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    db.close();
    const err = await open()
      .ping()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreUnavailableError);
    expect((err as Error).message).toMatch(/newer than this ClawRun understands/);
    inspect((d) => expect(d.pragma("user_version", { simple: true })).toBe(SCHEMA_VERSION + 1));
  });

  it("turns a write lock held too long by another connection into StoreUnavailableError", async () => {
    const store = open(freshInstance("busy"), { busyTimeoutMs: 50 });
    await store.ping();
    const other = new Database(file);
    other.exec("BEGIN IMMEDIATE");
    try {
      const err = await store.state.compareAndSet(0, state()).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(StoreUnavailableError);
      expect((err as Error).message).toMatch(/SQLITE_BUSY|locked/i);
    } finally {
      other.exec("ROLLBACK");
      other.close();
    }
    expect(await store.state.compareAndSet(0, state())).toEqual({ ok: true, version: 1 });
  });

  it("prunes expired dedupe ids and counters as it goes", async () => {
    const instance = freshInstance("prune");
    const store = open(instance, { dedupeWindowMs: 50 });
    await store.inbox.enqueue(message("old"));
    await store.inbox.ack("old");
    await store.counters.hit("old-key", 50);
    await sleep(80);
    await store.inbox.enqueue(message("new"));
    await store.counters.hit("new-key", 60_000);
    inspect((db) => {
      const ids = db.prepare(`SELECT id FROM inbox_dedupe WHERE instance = ?`).all(instance);
      expect(ids).toEqual([{ id: "new" }]);
      const keys = db.prepare(`SELECT key FROM hits WHERE instance = ?`).all(instance);
      expect(keys).toEqual([{ key: "new-key" }]);
    });
  });

  it("stays consistent with several processes writing the same file", async () => {
    const instance = freshInstance("procs");
    const store = open(instance);
    await store.state.compareAndSet(0, state({ since: 0 }));
    const workers = Array.from({ length: 4 }, () => startWorker(instance));
    // Every worker has opened the file; release them at once so they collide.
    await Promise.all(workers.map((w) => w.ready));
    for (const w of workers) w.go();
    const results = await Promise.all(workers.map((w) => w.done));
    const final = await store.state.get();
    expect(final?.value.since).toBe(4 * PER_WORKER);
    expect(final?.version).toBe(4 * PER_WORKER + 1);
    // The processes really raced: some compare-and-sets lost and retried.
    expect(results.reduce((n, r) => n + r.conflicts, 0)).toBeGreaterThan(0);
    expect(results.filter((r) => r.lock)).toHaveLength(1);
    expect(results.filter((r) => !r.duplicate)).toHaveLength(1);
    expect(await store.inbox.count()).toEqual({ pending: 1, dead: 0 });
  });
});

import { randomUUID } from "node:crypto";
import {
  type AwakeInterval,
  awakeIntervalSchema,
  type LifecycleEvent,
  lifecycleEventSchema,
  type NewLifecycleEvent,
} from "../domain/events";
import { type StoredHeartbeat, storedHeartbeatSchema } from "../domain/heartbeat-record";
import { type InstanceState, instanceStateSchema, type Versioned } from "../domain/instance-state";
import { type Schedule, scheduleSchema } from "../domain/schedule";
import { SqliteConnection, type SqliteConnectionOptions } from "./sqlite-connection";
import { type SqliteContext, SqliteInbox } from "./sqlite-inbox";
import {
  HEARTBEAT_RETENTION_MS,
  type ResolvedStoreOptions,
  resolveStoreOptions,
} from "./store-options";
import { parseStoredJson } from "./stored-data";
import type { CasResult, HeartbeatRecord, LockGrant, Store, StoreOptions } from "./types";

export interface SqliteStoreOptions extends StoreOptions, SqliteConnectionOptions {}

type StateRow = { version: number; value: string };
type LockRow = { owner: string | null; expires_at: number; fence: number };

/**
 * The embedded store: one better-sqlite3 file in WAL mode. Several Store objects (and
 * processes) may share the file: every read-modify-write is one IMMEDIATE transaction, so
 * the write lock is taken up front and concurrent writers queue on the busy timeout.
 * better-sqlite3 is synchronous; the async methods exist to satisfy the port.
 */
export class SqliteStore implements Store {
  readonly kind = "sqlite" as const;
  readonly description: string;
  private readonly conn: SqliteConnection;
  private readonly instance: string;
  private readonly opts: ResolvedStoreOptions;
  private readonly inbox: SqliteInbox;

  constructor(file: string, options: SqliteStoreOptions) {
    this.opts = resolveStoreOptions(options);
    this.instance = this.opts.instance;
    this.conn = new SqliteConnection(file, options);
    this.description = this.conn.description;
    const ctx: SqliteContext = {
      instance: this.instance,
      dedupeWindowMs: this.opts.dedupeWindowMs,
      sql: this.sql,
      tx: this.tx,
    };
    this.inbox = new SqliteInbox(ctx);
  }

  async ping(): Promise<void> {
    await this.run(() => this.sql("SELECT 1").get());
  }

  async close(): Promise<void> {
    this.conn.close();
  }

  // ── instance state ────────────────────────────────────────────────
  getState(): Promise<Versioned<InstanceState> | null> {
    return this.run(() => this.readState());
  }

  compareAndSetState(expectedVersion: number, next: InstanceState): Promise<CasResult> {
    return this.run(() =>
      this.tx((): CasResult => {
        const current = this.readState();
        const version = current?.version ?? 0;
        if (version !== expectedVersion) return { ok: false, current };
        this.sql(
          `INSERT INTO instance_state (instance, version, value) VALUES (?, ?, ?)
           ON CONFLICT (instance) DO UPDATE SET version = excluded.version, value = excluded.value`,
        ).run(this.instance, version + 1, JSON.stringify(next));
        return { ok: true, version: version + 1 };
      }),
    );
  }

  // ── locks ─────────────────────────────────────────────────────────
  acquireLock(name: string, owner: string, leaseMs: number): Promise<LockGrant | null> {
    return this.run(() =>
      this.tx(() => {
        const now = Date.now();
        const row = this.lockRow(name);
        if (row?.owner != null && row.owner !== owner && row.expires_at > now) return null;
        // The fence only ever grows: the row (and its counter) outlives release and expiry.
        const fence = (row?.fence ?? 0) + 1;
        const expiresAt = now + leaseMs;
        this.sql(
          `INSERT INTO locks (instance, name, owner, expires_at, fence) VALUES (?, ?, ?, ?, ?)
           ON CONFLICT (instance, name) DO UPDATE SET owner = excluded.owner,
             expires_at = excluded.expires_at, fence = excluded.fence`,
        ).run(this.instance, name, owner, expiresAt, fence);
        return { name, owner, fence, expiresAt };
      }),
    );
  }

  renewLock(name: string, owner: string, leaseMs: number): Promise<boolean> {
    return this.run(() => {
      const now = Date.now();
      const result = this.sql(
        `UPDATE locks SET expires_at = ? WHERE instance = ? AND name = ? AND owner = ? AND expires_at > ?`,
      ).run(now + leaseMs, this.instance, name, owner, now);
      return result.changes === 1;
    });
  }

  releaseLock(name: string, owner: string): Promise<boolean> {
    return this.run(() => {
      const result = this.sql(
        `UPDATE locks SET owner = NULL, expires_at = 0
         WHERE instance = ? AND name = ? AND owner = ? AND expires_at > ?`,
      ).run(this.instance, name, owner, Date.now());
      return result.changes === 1;
    });
  }

  // ── heartbeats ────────────────────────────────────────────────────
  recordHeartbeat(hb: StoredHeartbeat): Promise<HeartbeatRecord> {
    return this.run(() =>
      this.tx(() => {
        const now = Date.now();
        const prev = this.sql(
          `SELECT sent_at, value FROM heartbeats WHERE instance = ? AND sandbox_id = ?`,
        ).get(this.instance, hb.sandboxId) as { sent_at: number; value: string } | undefined;
        const fresh = prev === undefined || prev.sent_at < hb.sentAt;
        if (fresh) {
          this.sql(
            `INSERT INTO heartbeats (instance, sandbox_id, sent_at, stored_at, value) VALUES (?, ?, ?, ?, ?)
             ON CONFLICT (instance, sandbox_id) DO UPDATE SET sent_at = excluded.sent_at,
               stored_at = excluded.stored_at, value = excluded.value`,
          ).run(this.instance, hb.sandboxId, hb.sentAt, now, JSON.stringify(hb));
          // Sandboxes come and go; forget the ones silent for longer than the retention.
          this.sql(`DELETE FROM heartbeats WHERE instance = ? AND stored_at < ?`).run(
            this.instance,
            now - HEARTBEAT_RETENTION_MS,
          );
        }
        const key = `sqlite:heartbeats[${this.instance}/${hb.sandboxId}]`;
        const previous = prev ? parseStoredJson(storedHeartbeatSchema, prev.value, key) : null;
        return { fresh, previous, state: this.readState() };
      }),
    );
  }

  getHeartbeat(sandboxId: string): Promise<StoredHeartbeat | null> {
    return this.run(() => {
      const row = this.sql(
        `SELECT value FROM heartbeats WHERE instance = ? AND sandbox_id = ?`,
      ).get(this.instance, sandboxId) as { value: string } | undefined;
      if (!row) return null;
      const key = `sqlite:heartbeats[${this.instance}/${sandboxId}]`;
      return parseStoredJson(storedHeartbeatSchema, row.value, key);
    });
  }

  // ── events ────────────────────────────────────────────────────────
  appendEvent(event: NewLifecycleEvent): Promise<LifecycleEvent> {
    const full: LifecycleEvent = { id: randomUUID(), ...event };
    return this.run(() =>
      this.tx(() => {
        this.sql(`INSERT INTO events (instance, value) VALUES (?, ?)`).run(
          this.instance,
          JSON.stringify(full),
        );
        this.sql(
          `DELETE FROM events WHERE instance = ? AND seq <= (
             SELECT seq FROM events WHERE instance = ? ORDER BY seq DESC LIMIT 1 OFFSET ?)`,
        ).run(this.instance, this.instance, this.opts.eventCap);
        return full;
      }),
    );
  }

  listEvents(limit: number): Promise<LifecycleEvent[]> {
    return this.run(() => {
      if (limit <= 0) return [];
      const rows = this.sql(
        `SELECT value FROM events WHERE instance = ? ORDER BY seq DESC LIMIT ?`,
      ).all(this.instance, limit) as { value: string }[];
      const key = `sqlite:events[${this.instance}]`;
      return rows.map((r) => parseStoredJson(lifecycleEventSchema, r.value, key));
    });
  }

  recordAwakeInterval(interval: AwakeInterval): Promise<void> {
    const { sandboxId, start, end } = interval;
    return this.run(() =>
      this.tx(() => {
        this.sql(
          `INSERT OR IGNORE INTO awake_intervals (instance, end_at, value) VALUES (?, ?, ?)`,
        ).run(this.instance, end, JSON.stringify({ sandboxId, start, end }));
        this.sql(
          `DELETE FROM awake_intervals WHERE instance = ? AND seq IN (
             SELECT seq FROM awake_intervals WHERE instance = ?
             ORDER BY end_at DESC, seq DESC LIMIT -1 OFFSET ?)`,
        ).run(this.instance, this.instance, this.opts.intervalCap);
      }),
    );
  }

  listAwakeIntervals(since: number): Promise<AwakeInterval[]> {
    return this.run(() => {
      const rows = this.sql(
        `SELECT value FROM awake_intervals WHERE instance = ? AND end_at >= ? ORDER BY end_at`,
      ).all(this.instance, since) as { value: string }[];
      const key = `sqlite:awake_intervals[${this.instance}]`;
      return rows
        .map((r) => parseStoredJson(awakeIntervalSchema, r.value, key))
        .sort((a, b) => a.start - b.start || a.end - b.end);
    });
  }

  // ── inbox ─────────────────────────────────────────────────────────
  enqueue: Store["enqueue"] = (message) => this.run(() => this.inbox.enqueue(message));
  listPending: Store["listPending"] = (limit) => this.run(() => this.inbox.list("pending", limit));
  claim: Store["claim"] = (now, visibilityMs, limit) =>
    this.run(() => this.inbox.claim(now, visibilityMs, limit));
  ack: Store["ack"] = (id) => this.run(() => this.inbox.ack(id));
  release: Store["release"] = (id) => this.run(() => this.inbox.release(id));
  fail: Store["fail"] = (id, error, opts) => this.run(() => this.inbox.fail(id, error, opts));
  listDead: Store["listDead"] = (limit) => this.run(() => this.inbox.list("dead", limit));
  retryDead: Store["retryDead"] = (id) => this.run(() => this.inbox.retryDead(id));
  countInbox: Store["countInbox"] = () => this.run(() => this.inbox.count());

  // ── schedule ──────────────────────────────────────────────────────
  getSchedule(): Promise<Schedule | null> {
    return this.run(() => {
      const row = this.sql(`SELECT value FROM schedule WHERE instance = ?`).get(this.instance) as
        | { value: string }
        | undefined;
      return row
        ? parseStoredJson(scheduleSchema, row.value, `sqlite:schedule[${this.instance}]`)
        : null;
    });
  }

  async setSchedule(schedule: Schedule): Promise<void> {
    await this.run(() =>
      this.sql(
        `INSERT INTO schedule (instance, value) VALUES (?, ?)
         ON CONFLICT (instance) DO UPDATE SET value = excluded.value`,
      ).run(this.instance, JSON.stringify(schedule)),
    );
  }

  // ── small records ─────────────────────────────────────────────────
  kvGet(key: string): Promise<string | null> {
    return this.run(() => {
      const row = this.sql(
        `SELECT value FROM kv WHERE instance = ? AND key = ? AND (expires_at IS NULL OR expires_at > ?)`,
      ).get(this.instance, key, Date.now()) as { value: string } | undefined;
      return row?.value ?? null;
    });
  }

  async kvSet(key: string, value: string, ttlMs: number | null): Promise<void> {
    await this.run(() =>
      this.sql(
        `INSERT INTO kv (instance, key, value, expires_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (instance, key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at`,
      ).run(this.instance, key, value, ttlMs === null ? null : Date.now() + Math.ceil(ttlMs)),
    );
  }

  async kvDelete(key: string): Promise<void> {
    await this.run(() =>
      this.sql(`DELETE FROM kv WHERE instance = ? AND key = ?`).run(this.instance, key),
    );
  }

  // ── counters ──────────────────────────────────────────────────────
  hit(key: string, windowMs: number): Promise<{ count: number; resetAt: number }> {
    return this.run(() =>
      this.tx(() => {
        const now = Date.now();
        // Expired windows are dropped here, so the table only holds live counters.
        this.sql(`DELETE FROM hits WHERE instance = ? AND reset_at <= ?`).run(this.instance, now);
        return this.sql(
          `INSERT INTO hits (instance, key, count, reset_at) VALUES (?, ?, 1, ?)
           ON CONFLICT (instance, key) DO UPDATE SET count = count + 1
           RETURNING count, reset_at AS resetAt`,
        ).get(this.instance, key, now + windowMs) as { count: number; resetAt: number };
      }),
    );
  }

  readHits(key: string): Promise<number> {
    return this.run(() => {
      const row = this.sql(
        `SELECT count FROM hits WHERE instance = ? AND key = ? AND reset_at > ?`,
      ).get(this.instance, key, Date.now()) as { count: number } | undefined;
      return row?.count ?? 0;
    });
  }

  // ── plumbing ──────────────────────────────────────────────────────
  private readonly sql = (text: string) => this.conn.sql(text);
  private readonly tx = <T>(fn: () => T): T => this.conn.tx(fn);
  private readonly run = <T>(fn: () => T): Promise<T> => this.conn.run(fn);

  private readState(): Versioned<InstanceState> | null {
    const row = this.sql(`SELECT version, value FROM instance_state WHERE instance = ?`).get(
      this.instance,
    ) as StateRow | undefined;
    if (!row) return null;
    const key = `sqlite:instance_state[${this.instance}]`;
    return { version: row.version, value: parseStoredJson(instanceStateSchema, row.value, key) };
  }

  private lockRow(name: string): LockRow | undefined {
    return this.sql(
      `SELECT owner, expires_at, fence FROM locks WHERE instance = ? AND name = ?`,
    ).get(this.instance, name) as LockRow | undefined;
  }
}

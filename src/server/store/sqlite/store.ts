import { resolveStoreOptions } from "../store-options";
import type { Store, StoreOptions } from "../types";
import { SqliteConnection, type SqliteConnectionOptions } from "./connection";
import { SqliteDeliveries } from "./deliveries";
import { INBOX_TABLES, OUTBOX_TABLES, type SqliteContext, SqliteMessageQueue } from "./inbox";
import { SqliteLocks } from "./locks";
import { SqliteAwake, SqliteEvents } from "./logs";
import { SqliteCounters, SqliteKv, SqliteSchedule } from "./records";
import { SqliteHeartbeats, SqliteState } from "./state";
import { SqliteUsage } from "./usage";

export interface SqliteStoreOptions extends StoreOptions, SqliteConnectionOptions {}

/**
 * The embedded store: one better-sqlite3 file in WAL mode. Several Store objects (and
 * processes) may share the file: every read-modify-write is one IMMEDIATE transaction, so
 * the write lock is taken up front and concurrent writers queue on the busy timeout.
 * better-sqlite3 is synchronous; the async methods exist to satisfy the ports.
 */
export class SqliteStore implements Store {
  readonly kind = "sqlite" as const;
  readonly description: string;
  readonly state: SqliteState;
  readonly locks: SqliteLocks;
  readonly heartbeats: SqliteHeartbeats;
  readonly events: SqliteEvents;
  readonly awake: SqliteAwake;
  readonly inbox: SqliteMessageQueue;
  readonly outbox: SqliteMessageQueue;
  readonly schedule: SqliteSchedule;
  readonly counters: SqliteCounters;
  readonly kv: SqliteKv;
  readonly usage: SqliteUsage;
  readonly deliveries: SqliteDeliveries;
  private readonly conn: SqliteConnection;

  constructor(file: string, options: SqliteStoreOptions) {
    const opts = resolveStoreOptions(options);
    const conn = new SqliteConnection(file, options);
    this.conn = conn;
    this.description = conn.description;
    const ctx: SqliteContext = {
      instance: opts.instance,
      opts,
      sql: (text) => conn.sql(text),
      tx: (fn) => conn.tx(fn),
      run: (fn) => conn.run(fn),
    };
    this.state = new SqliteState(ctx);
    this.locks = new SqliteLocks(ctx);
    this.heartbeats = new SqliteHeartbeats(ctx);
    this.events = new SqliteEvents(ctx);
    this.awake = new SqliteAwake(ctx);
    this.inbox = new SqliteMessageQueue(ctx, INBOX_TABLES);
    this.outbox = new SqliteMessageQueue(ctx, OUTBOX_TABLES);
    this.schedule = new SqliteSchedule(ctx);
    this.counters = new SqliteCounters(ctx);
    this.kv = new SqliteKv(ctx);
    this.usage = new SqliteUsage(ctx);
    this.deliveries = new SqliteDeliveries(ctx);
  }

  async ping(): Promise<void> {
    await this.conn.run(() => this.conn.sql("SELECT 1").get());
  }

  async close(): Promise<void> {
    this.conn.close();
  }
}

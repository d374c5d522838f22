import type { Database } from "better-sqlite3";
import { StoreUnavailableError } from "../types";

/**
 * Schema migrations, tracked in `PRAGMA user_version` (= number of migrations applied).
 * Append only: never edit a shipped migration, add the next one.
 * Every table carries an `instance` column so deployments can share one file.
 * STRICT tables: typed columns cannot silently hold text, so only JSON columns need parsing.
 */
const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE instance_state (
    instance TEXT PRIMARY KEY,
    version INTEGER NOT NULL,
    value TEXT NOT NULL
  ) STRICT;

  -- Rows are never deleted: the fence counter must survive release and expiry.
  CREATE TABLE locks (
    instance TEXT NOT NULL,
    name TEXT NOT NULL,
    owner TEXT,
    expires_at INTEGER NOT NULL,
    fence INTEGER NOT NULL,
    PRIMARY KEY (instance, name)
  ) STRICT;

  CREATE TABLE heartbeats (
    instance TEXT NOT NULL,
    sandbox_id TEXT NOT NULL,
    sent_at INTEGER NOT NULL,
    stored_at INTEGER NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY (instance, sandbox_id)
  ) STRICT;
  CREATE INDEX heartbeats_by_age ON heartbeats (instance, stored_at);

  CREATE TABLE events (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    instance TEXT NOT NULL,
    value TEXT NOT NULL
  ) STRICT;
  CREATE INDEX events_by_instance ON events (instance, seq);

  CREATE TABLE awake_intervals (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    instance TEXT NOT NULL,
    end_at INTEGER NOT NULL,
    value TEXT NOT NULL
  ) STRICT;
  CREATE INDEX awake_by_end ON awake_intervals (instance, end_at);
  -- The same interval recorded twice is one interval (as in the redis sorted set).
  CREATE UNIQUE INDEX awake_unique ON awake_intervals (instance, value);

  -- dead_seq is NULL while pending; set (in dead-letter order) once dead.
  CREATE TABLE inbox (
    instance TEXT NOT NULL,
    id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    conversation TEXT NOT NULL,
    body TEXT NOT NULL,
    attempts INTEGER NOT NULL,
    last_error TEXT,
    not_before INTEGER NOT NULL,
    claimed_until INTEGER NOT NULL,
    dead_seq INTEGER,
    PRIMARY KEY (instance, id)
  ) STRICT;
  CREATE INDEX inbox_by_seq ON inbox (instance, seq);
  CREATE INDEX inbox_dead ON inbox (instance, dead_seq) WHERE dead_seq IS NOT NULL;

  CREATE TABLE inbox_dedupe (
    instance TEXT NOT NULL,
    id TEXT NOT NULL,
    expires_at INTEGER NOT NULL,
    PRIMARY KEY (instance, id)
  ) STRICT;
  CREATE INDEX inbox_dedupe_by_expiry ON inbox_dedupe (instance, expires_at);

  -- Monotonic per-instance counters (inbox arrival order, dead-letter order).
  CREATE TABLE sequences (
    instance TEXT NOT NULL,
    name TEXT NOT NULL,
    value INTEGER NOT NULL,
    PRIMARY KEY (instance, name)
  ) STRICT;

  CREATE TABLE schedule (
    instance TEXT PRIMARY KEY,
    value TEXT NOT NULL
  ) STRICT;

  CREATE TABLE hits (
    instance TEXT NOT NULL,
    key TEXT NOT NULL,
    count INTEGER NOT NULL,
    reset_at INTEGER NOT NULL,
    PRIMARY KEY (instance, key)
  ) STRICT;
  CREATE INDEX hits_by_reset ON hits (instance, reset_at);
  `,
  `
  -- Small records with an optional expiry (expires_at NULL: never).
  CREATE TABLE kv (
    instance TEXT NOT NULL,
    key TEXT NOT NULL,
    value TEXT NOT NULL,
    expires_at INTEGER,
    PRIMARY KEY (instance, key)
  ) STRICT;
  `,
  `
  -- The outbox: agents' replies waiting to be sent to the platforms, shaped like the inbox.
  CREATE TABLE outbox (
    instance TEXT NOT NULL,
    id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    conversation TEXT NOT NULL,
    body TEXT NOT NULL,
    attempts INTEGER NOT NULL,
    last_error TEXT,
    not_before INTEGER NOT NULL,
    claimed_until INTEGER NOT NULL,
    dead_seq INTEGER,
    PRIMARY KEY (instance, id)
  ) STRICT;
  CREATE INDEX outbox_by_seq ON outbox (instance, seq);
  CREATE INDEX outbox_dead ON outbox (instance, dead_seq) WHERE dead_seq IS NOT NULL;

  CREATE TABLE outbox_dedupe (
    instance TEXT NOT NULL,
    id TEXT NOT NULL,
    expires_at INTEGER NOT NULL,
    PRIMARY KEY (instance, id)
  ) STRICT;
  CREATE INDEX outbox_dedupe_by_expiry ON outbox_dedupe (instance, expires_at);
  `,
  `
  -- Model spend per period ('d:2026-12-02', 'm:2026-12'): settled cost plus held reservations.
  CREATE TABLE usage_periods (
    instance TEXT NOT NULL,
    period TEXT NOT NULL,
    total INTEGER NOT NULL DEFAULT 0,
    raised INTEGER NOT NULL DEFAULT 0,
    warned INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (instance, period)
  ) STRICT;

  CREATE TABLE usage_models (
    instance TEXT NOT NULL,
    period TEXT NOT NULL,
    model TEXT NOT NULL,
    cost INTEGER NOT NULL DEFAULT 0,
    calls INTEGER NOT NULL DEFAULT 0,
    input INTEGER NOT NULL DEFAULT 0,
    output INTEGER NOT NULL DEFAULT 0,
    cached INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (instance, period, model)
  ) STRICT;
  `,
  `
  -- Model spend per conversation ('' : unattributed) and period, beside usage_models.
  CREATE TABLE usage_conversations (
    instance TEXT NOT NULL,
    period TEXT NOT NULL,
    conversation TEXT NOT NULL,
    cost INTEGER NOT NULL DEFAULT 0,
    calls INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (instance, period, conversation)
  ) STRICT;

  -- Deliveries under way: a model call meanwhile is for the delivery's conversation.
  CREATE TABLE open_deliveries (
    instance TEXT NOT NULL,
    id TEXT NOT NULL,
    until INTEGER NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY (instance, id)
  ) STRICT;
  `,
  `
  -- The cap (micro-USD) a refused call last marked reached in the period; -1: none.
  ALTER TABLE usage_periods ADD COLUMN reached INTEGER NOT NULL DEFAULT -1;
  `,
];

export const SCHEMA_VERSION = MIGRATIONS.length;

/** Brings the file to SCHEMA_VERSION; safe when several processes open it at once (IMMEDIATE transaction). */
export function migrate(db: Database, file: string): void {
  db.transaction(() => {
    const current = db.pragma("user_version", { simple: true }) as number;
    if (current > MIGRATIONS.length) {
      throw new StoreUnavailableError(
        `${file} has schema version ${current}, newer than this ClawRun understands (${MIGRATIONS.length}): upgrade ClawRun or point CLAWRUN_STATE_DIR elsewhere`,
      );
    }
    for (const sql of MIGRATIONS.slice(current)) db.exec(sql);
    if (current !== MIGRATIONS.length) db.pragma(`user_version = ${MIGRATIONS.length}`);
  }).immediate();
}

import { type StoredHeartbeat, storedHeartbeatSchema } from "../../domain/heartbeat-record";
import {
  type InstanceState,
  instanceStateSchema,
  type Versioned,
} from "../../domain/instance-state";
import { HEARTBEAT_RETENTION_MS } from "../store-options";
import { parseStoredJson } from "../stored-data";
import type { CasResult, HeartbeatRecord, HeartbeatStore, StateGlance, StateStore } from "../types";
import type { SqliteContext } from "./inbox";

type StateRow = { version: number; value: string };

export function readState(ctx: SqliteContext): Versioned<InstanceState> | null {
  const row = ctx
    .sql(`SELECT version, value FROM instance_state WHERE instance = ?`)
    .get(ctx.instance) as StateRow | undefined;
  if (!row) return null;
  const key = `sqlite:instance_state[${ctx.instance}]`;
  return { version: row.version, value: parseStoredJson(instanceStateSchema, row.value, key) };
}

/** The instance state row, versioned; a write is one IMMEDIATE read-compare-write transaction. */
export class SqliteState implements StateStore {
  constructor(private readonly ctx: SqliteContext) {}

  get(): Promise<Versioned<InstanceState> | null> {
    return this.ctx.run(() => readState(this.ctx));
  }

  compareAndSet(expectedVersion: number, next: InstanceState): Promise<CasResult> {
    const { ctx } = this;
    return ctx.run(() =>
      ctx.tx((): CasResult => {
        const current = readState(ctx);
        const version = current?.version ?? 0;
        if (version !== expectedVersion) return { ok: false, current };
        ctx
          .sql(
            `INSERT INTO instance_state (instance, version, value) VALUES (?, ?, ?)
             ON CONFLICT (instance) DO UPDATE SET version = excluded.version, value = excluded.value`,
          )
          .run(ctx.instance, version + 1, JSON.stringify(next));
        return { ok: true, version: version + 1 };
      }),
    );
  }

  glance(): Promise<StateGlance> {
    const { ctx } = this;
    return ctx.run(() => {
      // One statement; dead letters keep their row with a dead_seq, so only the others count.
      const row = ctx
        .sql(
          `SELECT s.version, s.value,
             (SELECT count(*) FROM inbox WHERE instance = ? AND dead_seq IS NULL) AS inbox,
             (SELECT count(*) FROM outbox WHERE instance = ? AND dead_seq IS NULL) AS outbox
           FROM (SELECT 1) LEFT JOIN instance_state s ON s.instance = ?`,
        )
        .get(ctx.instance, ctx.instance, ctx.instance) as {
        version: number | null;
        value: string | null;
        inbox: number;
        outbox: number;
      };
      const key = `sqlite:instance_state[${ctx.instance}]`;
      const state =
        row.version === null || row.value === null
          ? null
          : { version: row.version, value: parseStoredJson(instanceStateSchema, row.value, key) };
      return { state, inboxPending: row.inbox, outboxPending: row.outbox };
    });
  }
}

/** Last heartbeat per sandbox; recording one also reads the state, in one transaction. */
export class SqliteHeartbeats implements HeartbeatStore {
  constructor(private readonly ctx: SqliteContext) {}

  record(hb: StoredHeartbeat): Promise<HeartbeatRecord> {
    const { ctx } = this;
    return ctx.run(() =>
      ctx.tx(() => {
        const now = Date.now();
        const prev = ctx
          .sql(`SELECT sent_at, value FROM heartbeats WHERE instance = ? AND sandbox_id = ?`)
          .get(ctx.instance, hb.sandboxId) as { sent_at: number; value: string } | undefined;
        const fresh = prev === undefined || prev.sent_at < hb.sentAt;
        if (fresh) {
          ctx
            .sql(
              `INSERT INTO heartbeats (instance, sandbox_id, sent_at, stored_at, value) VALUES (?, ?, ?, ?, ?)
               ON CONFLICT (instance, sandbox_id) DO UPDATE SET sent_at = excluded.sent_at,
                 stored_at = excluded.stored_at, value = excluded.value`,
            )
            .run(ctx.instance, hb.sandboxId, hb.sentAt, now, JSON.stringify(hb));
          // Sandboxes come and go; forget the ones silent for longer than the retention.
          ctx
            .sql(`DELETE FROM heartbeats WHERE instance = ? AND stored_at < ?`)
            .run(ctx.instance, now - HEARTBEAT_RETENTION_MS);
        }
        const key = `sqlite:heartbeats[${ctx.instance}/${hb.sandboxId}]`;
        const previous = prev ? parseStoredJson(storedHeartbeatSchema, prev.value, key) : null;
        return { fresh, previous, state: readState(ctx) };
      }),
    );
  }

  get(sandboxId: string): Promise<StoredHeartbeat | null> {
    const { ctx } = this;
    return ctx.run(() => {
      const row = ctx
        .sql(`SELECT value FROM heartbeats WHERE instance = ? AND sandbox_id = ?`)
        .get(ctx.instance, sandboxId) as { value: string } | undefined;
      if (!row) return null;
      const key = `sqlite:heartbeats[${ctx.instance}/${sandboxId}]`;
      return parseStoredJson(storedHeartbeatSchema, row.value, key);
    });
  }
}

import type Database from "better-sqlite3";
import type { InboxMessage, NewInboxMessage } from "../../domain/inbox-message";
import type { ResolvedStoreOptions } from "../store-options";
import { assembleInboxMessage, inboxBody } from "../stored-data";
import type { MessageQueue } from "../types";

/** What each part of the sqlite store works through: the connection, scoped to one instance. */
export interface SqliteContext {
  readonly instance: string;
  readonly opts: ResolvedStoreOptions;
  sql(text: string): Database.Statement;
  /** Runs `fn` in an IMMEDIATE transaction. */
  tx<T>(fn: () => T): T;
  /** The async face of a synchronous call, with backend failures mapped to store errors. */
  run<T>(fn: () => T): Promise<T>;
}

interface InboxRow {
  id: string;
  seq: number;
  conversation: string;
  body: string;
  attempts: number;
  last_error: string | null;
  not_before: number;
  claimed_until: number;
  dead_seq: number | null;
}

const COLUMNS = `id, seq, conversation, body, attempts, last_error, not_before, claimed_until, dead_seq`;

/** The durable inbox on sqlite: pending rows have dead_seq NULL; dead rows are ordered by dead_seq. */
/** The tables and counters of one queue: the inbox (messages) or the outbox (replies). */
export interface QueueTables {
  table: "inbox" | "outbox";
  dedupe: "inbox_dedupe" | "outbox_dedupe";
  seq: string;
  deadSeq: string;
}

export const INBOX_TABLES: QueueTables = {
  table: "inbox",
  dedupe: "inbox_dedupe",
  seq: "inbox",
  deadSeq: "dead",
};
export const OUTBOX_TABLES: QueueTables = {
  table: "outbox",
  dedupe: "outbox_dedupe",
  seq: "outbox",
  deadSeq: "outbox-dead",
};

export class SqliteMessageQueue implements MessageQueue {
  constructor(
    private readonly ctx: SqliteContext,
    private readonly t: QueueTables = INBOX_TABLES,
  ) {}

  enqueue(message: NewInboxMessage): Promise<{ duplicate: boolean; message: InboxMessage | null }> {
    return this.ctx.run(() => {
      const { ctx } = this;
      return ctx.tx(() => {
        const now = Date.now();
        // Expired dedupe ids are dropped here, so the table only holds live ones.
        ctx
          .sql(`DELETE FROM ${this.t.dedupe} WHERE instance = ? AND expires_at <= ?`)
          .run(ctx.instance, now);
        const existing = this.row(message.id);
        if (existing) return { duplicate: true, message: this.toMessage(existing) };
        const seen = ctx
          .sql(`SELECT 1 FROM ${this.t.dedupe} WHERE instance = ? AND id = ?`)
          .get(ctx.instance, message.id);
        if (seen) return { duplicate: true, message: null };

        const seq = this.next(this.t.seq);
        ctx
          .sql(
            `INSERT INTO ${this.t.table} (instance, id, seq, conversation, body, attempts, last_error,
               not_before, claimed_until, dead_seq) VALUES (?, ?, ?, ?, ?, 0, NULL, 0, 0, NULL)`,
          )
          .run(ctx.instance, message.id, seq, message.conversation, inboxBody(message));
        ctx
          .sql(`INSERT INTO ${this.t.dedupe} (instance, id, expires_at) VALUES (?, ?, ?)`)
          .run(ctx.instance, message.id, now + ctx.opts.dedupeWindowMs);
        const stored = this.row(message.id);
        return { duplicate: false, message: stored ? this.toMessage(stored) : null };
      });
    });
  }

  listPending(limit: number): Promise<InboxMessage[]> {
    return this.ctx.run(() => this.list("pending", limit));
  }

  listDead(limit: number): Promise<InboxMessage[]> {
    return this.ctx.run(() => this.list("dead", limit));
  }

  private list(which: "pending" | "dead", limit: number): InboxMessage[] {
    if (limit <= 0) return [];
    const sql =
      which === "pending"
        ? `SELECT ${COLUMNS} FROM ${this.t.table} WHERE instance = ? AND dead_seq IS NULL ORDER BY seq LIMIT ?`
        : `SELECT ${COLUMNS} FROM ${this.t.table} WHERE instance = ? AND dead_seq IS NOT NULL ORDER BY dead_seq DESC LIMIT ?`;
    const rows = this.ctx.sql(sql).all(this.ctx.instance, limit) as InboxRow[];
    return rows.map((r) => this.toMessage(r));
  }

  claim(now: number, visibilityMs: number, limit: number): Promise<InboxMessage[]> {
    return this.ctx.run(() => {
      const { ctx } = this;
      if (limit <= 0) return [];
      return ctx.tx(() => {
        const rows = ctx
          .sql(
            `SELECT ${COLUMNS} FROM ${this.t.table} WHERE instance = ? AND dead_seq IS NULL ORDER BY seq`,
          )
          .all(ctx.instance) as InboxRow[];
        const claimed: InboxMessage[] = [];
        // A conversation whose earliest pending message cannot be claimed now waits as a whole.
        const blocked = new Set<string>();
        const update = ctx.sql(
          `UPDATE ${this.t.table} SET claimed_until = ? WHERE instance = ? AND id = ?`,
        );
        for (const row of rows) {
          if (claimed.length >= limit) break;
          if (blocked.has(row.conversation)) continue;
          if (row.not_before > now || row.claimed_until > now) {
            blocked.add(row.conversation);
            continue;
          }
          update.run(now + visibilityMs, ctx.instance, row.id);
          claimed.push(this.toMessage({ ...row, claimed_until: now + visibilityMs }));
        }
        return claimed;
      });
    });
  }

  ack(id: string): Promise<boolean> {
    return this.ctx.run(() => {
      const result = this.ctx
        .sql(`DELETE FROM ${this.t.table} WHERE instance = ? AND id = ? AND dead_seq IS NULL`)
        .run(this.ctx.instance, id);
      return result.changes === 1;
    });
  }

  release(id: string): Promise<boolean> {
    return this.ctx.run(() => {
      const result = this.ctx
        .sql(
          `UPDATE ${this.t.table} SET claimed_until = 0 WHERE instance = ? AND id = ? AND dead_seq IS NULL`,
        )
        .run(this.ctx.instance, id);
      return result.changes === 1;
    });
  }

  defer(id: string, notBefore: number): Promise<boolean> {
    return this.ctx.run(() => {
      const result = this.ctx
        .sql(
          `UPDATE ${this.t.table} SET claimed_until = 0, not_before = ?
           WHERE instance = ? AND id = ? AND dead_seq IS NULL`,
        )
        .run(notBefore, this.ctx.instance, id);
      return result.changes === 1;
    });
  }

  fail(
    id: string,
    error: string,
    opts: { maxAttempts: number; retryAt: number },
  ): Promise<"retry" | "dead" | "missing"> {
    return this.ctx.run(() => {
      const { ctx } = this;
      return ctx.tx(() => {
        const row = this.row(id);
        if (!row || row.dead_seq !== null) return "missing";
        const attempts = row.attempts + 1;
        if (attempts >= opts.maxAttempts) {
          ctx
            .sql(
              `UPDATE ${this.t.table} SET attempts = ?, last_error = ?, claimed_until = 0, dead_seq = ?
               WHERE instance = ? AND id = ?`,
            )
            .run(attempts, error, this.next(this.t.deadSeq), ctx.instance, id);
          return "dead";
        }
        ctx
          .sql(
            `UPDATE ${this.t.table} SET attempts = ?, last_error = ?, not_before = ?, claimed_until = 0
             WHERE instance = ? AND id = ?`,
          )
          .run(attempts, error, opts.retryAt, ctx.instance, id);
        return "retry";
      });
    });
  }

  retryDead(id: string): Promise<boolean> {
    return this.ctx.run(() => {
      // seq is untouched, so the message returns to its original place in arrival order.
      const result = this.ctx
        .sql(
          `UPDATE ${this.t.table} SET dead_seq = NULL, attempts = 0, not_before = 0, claimed_until = 0
           WHERE instance = ? AND id = ? AND dead_seq IS NOT NULL`,
        )
        .run(this.ctx.instance, id);
      return result.changes === 1;
    });
  }

  count(): Promise<{ pending: number; dead: number }> {
    return this.ctx.run(() => {
      const row = this.ctx
        .sql(
          `SELECT count(*) FILTER (WHERE dead_seq IS NULL) AS pending,
                  count(*) FILTER (WHERE dead_seq IS NOT NULL) AS dead
           FROM ${this.t.table} WHERE instance = ?`,
        )
        .get(this.ctx.instance) as { pending: number; dead: number };
      return { pending: row.pending, dead: row.dead };
    });
  }

  private row(id: string): InboxRow | undefined {
    return this.ctx
      .sql(`SELECT ${COLUMNS} FROM ${this.t.table} WHERE instance = ? AND id = ?`)
      .get(this.ctx.instance, id) as InboxRow | undefined;
  }

  /** Next value of a per-instance counter that never goes back (arrival and dead-letter order). */
  private next(name: string): number {
    const row = this.ctx
      .sql(
        `INSERT INTO sequences (instance, name, value) VALUES (?, ?, 1)
         ON CONFLICT (instance, name) DO UPDATE SET value = value + 1 RETURNING value`,
      )
      .get(this.ctx.instance, name) as { value: number };
    return row.value;
  }

  private toMessage(row: InboxRow): InboxMessage {
    const key = `sqlite:${this.t.table}[${this.ctx.instance}/${row.id}]`;
    return assembleInboxMessage(
      row.body,
      {
        seq: row.seq,
        attempts: row.attempts,
        lastError: row.last_error,
        notBefore: row.not_before,
        claimedUntil: row.claimed_until,
      },
      key,
    );
  }
}

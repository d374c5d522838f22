import { type Schedule, scheduleSchema } from "../../domain/schedule";
import { parseStoredJson } from "../stored-data";
import type { CounterStore, KvStore, ScheduleStore } from "../types";
import type { SqliteContext } from "./inbox";

export class SqliteSchedule implements ScheduleStore {
  constructor(private readonly ctx: SqliteContext) {}

  get(): Promise<Schedule | null> {
    const { ctx } = this;
    return ctx.run(() => {
      const row = ctx.sql(`SELECT value FROM schedule WHERE instance = ?`).get(ctx.instance) as
        | { value: string }
        | undefined;
      return row
        ? parseStoredJson(scheduleSchema, row.value, `sqlite:schedule[${ctx.instance}]`)
        : null;
    });
  }

  async set(schedule: Schedule): Promise<void> {
    const { ctx } = this;
    await ctx.run(() =>
      ctx
        .sql(
          `INSERT INTO schedule (instance, value) VALUES (?, ?)
           ON CONFLICT (instance) DO UPDATE SET value = excluded.value`,
        )
        .run(ctx.instance, JSON.stringify(schedule)),
    );
  }
}

export class SqliteCounters implements CounterStore {
  constructor(private readonly ctx: SqliteContext) {}

  hit(key: string, windowMs: number): Promise<{ count: number; resetAt: number }> {
    const { ctx } = this;
    return ctx.run(() =>
      ctx.tx(() => {
        const now = Date.now();
        // Expired windows are dropped here, so the table only holds live counters.
        ctx.sql(`DELETE FROM hits WHERE instance = ? AND reset_at <= ?`).run(ctx.instance, now);
        return ctx
          .sql(
            `INSERT INTO hits (instance, key, count, reset_at) VALUES (?, ?, 1, ?)
             ON CONFLICT (instance, key) DO UPDATE SET count = count + 1
             RETURNING count, reset_at AS resetAt`,
          )
          .get(ctx.instance, key, now + windowMs) as { count: number; resetAt: number };
      }),
    );
  }

  read(key: string): Promise<number> {
    const { ctx } = this;
    return ctx.run(() => {
      const row = ctx
        .sql(`SELECT count FROM hits WHERE instance = ? AND key = ? AND reset_at > ?`)
        .get(ctx.instance, key, Date.now()) as { count: number } | undefined;
      return row?.count ?? 0;
    });
  }

  async clear(key: string): Promise<void> {
    const { ctx } = this;
    await ctx.run(() =>
      ctx.sql(`DELETE FROM hits WHERE instance = ? AND key = ?`).run(ctx.instance, key),
    );
  }
}

export class SqliteKv implements KvStore {
  constructor(private readonly ctx: SqliteContext) {}

  get(key: string): Promise<string | null> {
    const { ctx } = this;
    return ctx.run(() => {
      const row = ctx
        .sql(
          `SELECT value FROM kv WHERE instance = ? AND key = ? AND (expires_at IS NULL OR expires_at > ?)`,
        )
        .get(ctx.instance, key, Date.now()) as { value: string } | undefined;
      return row?.value ?? null;
    });
  }

  async set(key: string, value: string, ttlMs: number | null): Promise<void> {
    const { ctx } = this;
    await ctx.run(() =>
      ctx
        .sql(
          `INSERT INTO kv (instance, key, value, expires_at) VALUES (?, ?, ?, ?)
           ON CONFLICT (instance, key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at`,
        )
        .run(ctx.instance, key, value, ttlMs === null ? null : Date.now() + Math.ceil(ttlMs)),
    );
  }

  async delete(key: string): Promise<void> {
    const { ctx } = this;
    await ctx.run(() =>
      ctx.sql(`DELETE FROM kv WHERE instance = ? AND key = ?`).run(ctx.instance, key),
    );
  }
}

import { randomUUID } from "node:crypto";
import {
  type AwakeInterval,
  awakeIntervalSchema,
  type LifecycleEvent,
  lifecycleEventSchema,
  type NewLifecycleEvent,
} from "../../domain/events";
import { parseStoredJson } from "../stored-data";
import type { AwakeLog, EventLog } from "../types";
import type { SqliteContext } from "./inbox";

/** The capped event log: newest `eventCap` rows kept. */
export class SqliteEvents implements EventLog {
  constructor(private readonly ctx: SqliteContext) {}

  append(event: NewLifecycleEvent): Promise<LifecycleEvent> {
    const { ctx } = this;
    const full: LifecycleEvent = { id: randomUUID(), ...event };
    return ctx.run(() =>
      ctx.tx(() => {
        ctx
          .sql(`INSERT INTO events (instance, value) VALUES (?, ?)`)
          .run(ctx.instance, JSON.stringify(full));
        ctx
          .sql(
            `DELETE FROM events WHERE instance = ? AND seq <= (
               SELECT seq FROM events WHERE instance = ? ORDER BY seq DESC LIMIT 1 OFFSET ?)`,
          )
          .run(ctx.instance, ctx.instance, ctx.opts.eventCap);
        return full;
      }),
    );
  }

  list(limit: number): Promise<LifecycleEvent[]> {
    const { ctx } = this;
    return ctx.run(() => {
      if (limit <= 0) return [];
      const rows = ctx
        .sql(`SELECT value FROM events WHERE instance = ? ORDER BY seq DESC LIMIT ?`)
        .all(ctx.instance, limit) as { value: string }[];
      const key = `sqlite:events[${ctx.instance}]`;
      return rows.map((r) => parseStoredJson(lifecycleEventSchema, r.value, key));
    });
  }
}

/** Awake intervals, capped at `intervalCap` (the newest by end time kept). */
export class SqliteAwake implements AwakeLog {
  constructor(private readonly ctx: SqliteContext) {}

  record(interval: AwakeInterval): Promise<void> {
    const { ctx } = this;
    const { sandboxId, start, end } = interval;
    return ctx.run(() =>
      ctx.tx(() => {
        ctx
          .sql(`INSERT OR IGNORE INTO awake_intervals (instance, end_at, value) VALUES (?, ?, ?)`)
          .run(ctx.instance, end, JSON.stringify({ sandboxId, start, end }));
        ctx
          .sql(
            `DELETE FROM awake_intervals WHERE instance = ? AND seq IN (
               SELECT seq FROM awake_intervals WHERE instance = ?
               ORDER BY end_at DESC, seq DESC LIMIT -1 OFFSET ?)`,
          )
          .run(ctx.instance, ctx.instance, ctx.opts.intervalCap);
      }),
    );
  }

  list(since: number): Promise<AwakeInterval[]> {
    const { ctx } = this;
    return ctx.run(() => {
      const rows = ctx
        .sql(`SELECT value FROM awake_intervals WHERE instance = ? AND end_at >= ? ORDER BY end_at`)
        .all(ctx.instance, since) as { value: string }[];
      const key = `sqlite:awake_intervals[${ctx.instance}]`;
      return rows
        .map((r) => parseStoredJson(awakeIntervalSchema, r.value, key))
        .sort((a, b) => a.start - b.start || a.end - b.end);
    });
  }
}

import { openDeliverySchema } from "../open-delivery-schema";
import { parseStoredJson } from "../stored-data";
import type {
  ConversationSpend,
  ModelSpend,
  OpenDelivery,
  UsageReservation,
  UsageSettlement,
  UsageStore,
  UsageTotals,
} from "../types";
import type { SqliteContext } from "./inbox";
import { readState } from "./state";

const DAY = (d: string) => `d:${d}`;
const MONTH = (m: string) => `m:${m}`;

interface PeriodRow {
  total: number;
  raise: number;
  warned: number;
  reached: number;
}

/** Model spend in two small tables; each operation is one IMMEDIATE transaction. */
export class SqliteUsage implements UsageStore {
  constructor(private readonly ctx: SqliteContext) {}

  private period(period: string): PeriodRow {
    const row = this.ctx
      .sql(
        `SELECT total, raised AS raise, warned, reached FROM usage_periods
         WHERE instance = ? AND period = ?`,
      )
      .get(this.ctx.instance, period) as PeriodRow | undefined;
    return row ?? { total: 0, raise: 0, warned: 0, reached: -1 };
  }

  private add(period: string, micros: number): number {
    const row = this.ctx
      .sql(
        `INSERT INTO usage_periods (instance, period, total) VALUES (?, ?, ?)
         ON CONFLICT (instance, period) DO UPDATE SET total = total + excluded.total
         RETURNING total`,
      )
      .get(this.ctx.instance, period, micros) as { total: number };
    return row.total;
  }

  reserve(r: UsageReservation) {
    const { ctx } = this;
    return ctx.run(() =>
      ctx.tx(() => {
        const day = this.period(DAY(r.day));
        const month = this.period(MONTH(r.month));
        const open = this.openAt(r.now);
        const state = readState(ctx);
        const before = {
          dayMicros: day.total,
          monthMicros: month.total,
          raiseMicros: day.raise,
          open,
          state,
        };
        const overDay = r.dayLimit !== null && day.total + r.amount > r.dayLimit + day.raise;
        const overMonth = r.monthLimit !== null && month.total + r.amount > r.monthLimit;
        if (overDay || overMonth) {
          // The daily cap is reported first, as the gateway's message does.
          const [period, row, cap, name] = overDay
            ? ([DAY(r.day), day, (r.dayLimit as number) + day.raise, "daily"] as const)
            : ([MONTH(r.month), month, r.monthLimit as number, "monthly"] as const);
          if (row.reached === cap) return { held: false, reached: null, ...before };
          ctx
            .sql(
              `INSERT INTO usage_periods (instance, period, reached) VALUES (?, ?, ?)
               ON CONFLICT (instance, period) DO UPDATE SET reached = excluded.reached`,
            )
            .run(ctx.instance, period, cap);
          return { held: false, reached: name, ...before };
        }
        this.add(DAY(r.day), r.amount);
        this.add(MONTH(r.month), r.amount);
        return { held: true, reached: null, ...before };
      }),
    );
  }

  settle(s: UsageSettlement) {
    const { ctx } = this;
    return ctx.run(() =>
      ctx.tx(() => {
        const delta = s.cost - s.reserved;
        const warned: ("daily" | "monthly")[] = [];
        const lines = [
          [DAY(s.day), s.warnDayAt, "daily"],
          [MONTH(s.month), s.warnMonthAt, "monthly"],
        ] as const;
        for (const [period, line, name] of lines) {
          const total = this.add(period, delta);
          if (s.model !== null) {
            this.addModel(period, s);
            this.addConversation(period, s);
          }
          if (line !== null && total >= line && this.period(period).warned === 0) {
            ctx
              .sql(`UPDATE usage_periods SET warned = 1 WHERE instance = ? AND period = ?`)
              .run(ctx.instance, period);
            warned.push(name);
          }
        }
        return { warned };
      }),
    );
  }

  private addModel(period: string, s: UsageSettlement): void {
    this.ctx
      .sql(
        `INSERT INTO usage_models (instance, period, model, cost, calls, input, output, cached)
         VALUES (?, ?, ?, ?, 1, ?, ?, ?)
         ON CONFLICT (instance, period, model) DO UPDATE SET cost = cost + excluded.cost,
           calls = calls + 1, input = input + excluded.input, output = output + excluded.output,
           cached = cached + excluded.cached`,
      )
      .run(
        this.ctx.instance,
        period,
        s.model,
        s.cost,
        s.tokens.input,
        s.tokens.output,
        s.tokens.cachedInput,
      );
  }

  private openAt(now: number): OpenDelivery[] {
    const rows = this.ctx
      .sql(`SELECT value FROM open_deliveries WHERE instance = ? AND until > ? ORDER BY until`)
      .all(this.ctx.instance, now) as { value: string }[];
    return rows.map((r) => parseStoredJson(openDeliverySchema, r.value, "open_deliveries"));
  }

  private addConversation(period: string, s: UsageSettlement): void {
    this.ctx
      .sql(
        `INSERT INTO usage_conversations (instance, period, conversation, cost, calls)
         VALUES (?, ?, ?, ?, 1)
         ON CONFLICT (instance, period, conversation) DO UPDATE SET cost = cost + excluded.cost,
           calls = calls + 1`,
      )
      .run(this.ctx.instance, period, s.conversation, s.cost);
  }

  raise(day: string, micros: number): Promise<number> {
    const { ctx } = this;
    return ctx.run(() => {
      const row = ctx
        .sql(
          `INSERT INTO usage_periods (instance, period, raised) VALUES (?, ?, ?)
           ON CONFLICT (instance, period) DO UPDATE SET raised = raised + excluded.raised
           RETURNING raised AS raise`,
        )
        .get(ctx.instance, DAY(day), micros) as { raise: number };
      return row.raise;
    });
  }

  read(day: string, month: string): Promise<UsageTotals> {
    const { ctx } = this;
    return ctx.run(() => {
      const models = (period: string) => {
        const rows = ctx
          .sql(
            `SELECT model, cost, calls, input, output, cached FROM usage_models
             WHERE instance = ? AND period = ?`,
          )
          .all(ctx.instance, period) as {
          model: string;
          cost: number;
          calls: number;
          input: number;
          output: number;
          cached: number;
        }[];
        const out: Record<string, ModelSpend> = {};
        for (const r of rows) {
          out[r.model] = {
            costMicros: r.cost,
            calls: r.calls,
            inputTokens: r.input,
            outputTokens: r.output,
            cachedInputTokens: r.cached,
          };
        }
        return out;
      };
      const conversations = (period: string) => {
        const rows = ctx
          .sql(
            `SELECT conversation, cost, calls FROM usage_conversations
             WHERE instance = ? AND period = ?`,
          )
          .all(ctx.instance, period) as { conversation: string; cost: number; calls: number }[];
        const out: Record<string, ConversationSpend> = {};
        for (const r of rows) out[r.conversation] = { costMicros: r.cost, calls: r.calls };
        return out;
      };
      const d = this.period(DAY(day));
      const m = this.period(MONTH(month));
      return {
        day: {
          totalMicros: d.total,
          raiseMicros: d.raise,
          reachedMicros: d.reached < 0 ? null : d.reached,
          models: models(DAY(day)),
          conversations: conversations(DAY(day)),
        },
        month: {
          totalMicros: m.total,
          reachedMicros: m.reached < 0 ? null : m.reached,
          models: models(MONTH(month)),
          conversations: conversations(MONTH(month)),
        },
      };
    });
  }
}

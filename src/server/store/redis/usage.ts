import { z } from "zod";
import { openDeliverySchema } from "../open-delivery-schema";
import { parseStoredJson } from "../stored-data";
import {
  type ConversationSpend,
  type ModelSpend,
  type OpenDelivery,
  StoreDataError,
  type UsageReservation,
  type UsageSettlement,
  type UsageStore,
  type UsageTotals,
} from "../types";
import { parseReply, type RedisContext, stateFrom } from "./context";
import { USAGE_RESERVE, USAGE_SETTLE } from "./scripts";

/** Long enough to show last month's days and last year's months; then Redis forgets them. */
const DAY_TTL_MS = 40 * 24 * 3_600_000;
const MONTH_TTL_MS = 400 * 24 * 3_600_000;

const MODEL_FIELDS: Record<string, keyof ModelSpend> = {
  cost: "costMicros",
  calls: "calls",
  in: "inputTokens",
  out: "outputTokens",
  cached: "cachedInputTokens",
};

/** Model spend in one hash per day and per month; reserve and settle are one EVALSHA each. */
export class RedisUsage implements UsageStore {
  private readonly reserveScript;
  private readonly settleScript;

  constructor(private readonly ctx: RedisContext) {
    this.reserveScript = ctx.redis.createScript(USAGE_RESERVE);
    this.settleScript = ctx.redis.createScript(USAGE_SETTLE);
  }

  async reserve(r: UsageReservation) {
    const keys = [
      this.ctx.keys.usage("d", r.day),
      this.ctx.keys.usage("m", r.month),
      this.ctx.keys.delivering,
      this.ctx.keys.state,
    ];
    const raw = await this.ctx.call(keys[0] as string, () =>
      this.reserveScript.exec(keys, [
        String(r.amount),
        String(r.dayLimit ?? -1),
        String(r.monthLimit ?? -1),
        String(DAY_TTL_MS),
        String(MONTH_TTL_MS),
        String(r.now),
      ]),
    );
    const text = z.string().nullable();
    const [held, day, month, raise, marks, [version, value], reached] = parseReply(
      z.tuple([
        z.number(),
        z.number(),
        z.number(),
        z.number(),
        z.array(z.string()),
        z.tuple([text, text]),
        z.number(),
      ]),
      raw,
      "usage.reserve",
    );
    const state = stateFrom(this.ctx.keys, version, value);
    const open: OpenDelivery[] = marks.map((json) =>
      parseStoredJson(openDeliverySchema, json, this.ctx.keys.delivering),
    );
    return {
      held: held === 1,
      reached: reached === 1 ? ("daily" as const) : reached === 2 ? ("monthly" as const) : null,
      dayMicros: day,
      monthMicros: month,
      raiseMicros: raise,
      open,
      state,
    };
  }

  async settle(s: UsageSettlement) {
    const keys = [this.ctx.keys.usage("d", s.day), this.ctx.keys.usage("m", s.month)];
    const raw = await this.ctx.call(keys[0] as string, () =>
      this.settleScript.exec(keys, [
        String(s.cost - s.reserved),
        s.model ?? "",
        String(s.cost),
        String(s.tokens.input),
        String(s.tokens.output),
        String(s.tokens.cachedInput),
        String(s.warnDayAt ?? -1),
        String(s.warnMonthAt ?? -1),
        s.conversation,
      ]),
    );
    const [d, m] = parseReply(z.tuple([z.number(), z.number()]), raw, "usage.settle");
    const warned: ("daily" | "monthly")[] = [];
    if (d === 1) warned.push("daily");
    if (m === 1) warned.push("monthly");
    return { warned };
  }

  async raise(day: string, micros: number): Promise<number> {
    const key = this.ctx.keys.usage("d", day);
    const raw = await this.ctx.call(key, () =>
      this.ctx.exec(["HINCRBY", key, "raise", String(micros)]),
    );
    return Number(raw);
  }

  async read(day: string, month: string): Promise<UsageTotals> {
    const dayKey = this.ctx.keys.usage("d", day);
    const monthKey = this.ctx.keys.usage("m", month);
    // Two commands in parallel: one round trip of wall time.
    const [d, m] = await Promise.all(
      [dayKey, monthKey].map((key) =>
        this.ctx.call(key, async () => toHash(key, await this.ctx.exec(["HGETALL", key]))),
      ),
    );
    const dh = d as Map<string, number>;
    const mh = m as Map<string, number>;
    return {
      day: {
        totalMicros: dh.get("total") ?? 0,
        raiseMicros: dh.get("raise") ?? 0,
        reachedMicros: dh.get("reached") ?? null,
        models: models(dh),
        conversations: conversations(dh),
      },
      month: {
        totalMicros: mh.get("total") ?? 0,
        reachedMicros: mh.get("reached") ?? null,
        models: models(mh),
        conversations: conversations(mh),
      },
    };
  }
}

/** HGETALL's flat [field, value, ...] reply as numbers. */
function toHash(key: string, raw: unknown): Map<string, number> {
  const flat = parseReply(z.array(z.union([z.string(), z.number()])), raw ?? [], "usage.read");
  const out = new Map<string, number>();
  for (let i = 0; i + 1 < flat.length; i += 2) {
    const value = Number(flat[i + 1]);
    if (!Number.isFinite(value)) throw new StoreDataError(key, "expected integer usage fields");
    out.set(String(flat[i]), value);
  }
  return out;
}

function models(hash: Map<string, number>): Record<string, ModelSpend> {
  const out: Record<string, ModelSpend> = {};
  for (const [field, value] of hash) {
    const bar = field.indexOf("|");
    if (bar < 0) continue;
    const prop = MODEL_FIELDS[field.slice(0, bar)];
    if (!prop) continue;
    const model = field.slice(bar + 1);
    out[model] ??= {
      costMicros: 0,
      calls: 0,
      inputTokens: 0,
      outputTokens: 0,
      cachedInputTokens: 0,
    };
    out[model][prop] = value;
  }
  return out;
}

function conversations(hash: Map<string, number>): Record<string, ConversationSpend> {
  const out: Record<string, ConversationSpend> = {};
  for (const [field, value] of hash) {
    const bar = field.indexOf("|");
    const prop = field.slice(0, bar);
    if (prop !== "ccost" && prop !== "ccalls") continue;
    const conversation = field.slice(bar + 1);
    out[conversation] ??= { costMicros: 0, calls: 0 };
    if (prop === "ccost") out[conversation].costMicros = value;
    else out[conversation].calls = value;
  }
  return out;
}

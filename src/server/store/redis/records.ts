import { z } from "zod";
import { type Schedule, scheduleSchema } from "../../domain/schedule";
import { parseStoredJson } from "../stored-data";
import { type CounterStore, type KvStore, type ScheduleStore, StoreDataError } from "../types";
import { parseReply, type RedisContext, wholeMs } from "./context";
import { HIT } from "./scripts";

export class RedisSchedule implements ScheduleStore {
  constructor(private readonly ctx: RedisContext) {}

  async get(): Promise<Schedule | null> {
    const key = this.ctx.keys.schedule;
    const raw = await this.ctx.call(key, () => this.ctx.exec(["GET", key]));
    return raw === null ? null : parseStoredJson(scheduleSchema, raw, key);
  }

  async set(schedule: Schedule): Promise<void> {
    const key = this.ctx.keys.schedule;
    await this.ctx.call(key, () => this.ctx.exec(["SET", key, JSON.stringify(schedule)]));
  }
}

export class RedisCounters implements CounterStore {
  private readonly script;

  constructor(private readonly ctx: RedisContext) {
    this.script = ctx.redis.createScript(HIT);
  }

  async hit(name: string, windowMs: number): Promise<{ count: number; resetAt: number }> {
    const key = this.ctx.keys.hit(name);
    const raw = await this.ctx.call(key, () =>
      this.script.exec([key], [String(wholeMs(windowMs))]),
    );
    const [count, msLeft] = parseReply(z.tuple([z.number(), z.number()]), raw, "counters.hit");
    // Clock read after the reply: resetAt may be late by the reply's latency, never early.
    return { count, resetAt: Date.now() + msLeft };
  }

  async read(name: string): Promise<number> {
    const key = this.ctx.keys.hit(name);
    const raw = await this.ctx.call(key, () => this.ctx.exec(["GET", key]));
    if (raw === null) return 0;
    const count = Number(raw);
    if (!Number.isInteger(count)) throw new StoreDataError(key, "expected an integer counter");
    return count;
  }

  async clear(name: string): Promise<void> {
    const key = this.ctx.keys.hit(name);
    await this.ctx.call(key, () => this.ctx.exec(["DEL", key]));
  }
}

export class RedisKv implements KvStore {
  constructor(private readonly ctx: RedisContext) {}

  async get(name: string): Promise<string | null> {
    const key = this.ctx.keys.kv(name);
    const raw = await this.ctx.call(key, () => this.ctx.exec(["GET", key]));
    return raw === null ? null : String(raw);
  }

  async set(name: string, value: string, ttlMs: number | null): Promise<void> {
    const key = this.ctx.keys.kv(name);
    const args: [string, ...string[]] =
      ttlMs === null ? ["SET", key, value] : ["SET", key, value, "PX", String(wholeMs(ttlMs))];
    await this.ctx.call(key, () => this.ctx.exec(args));
  }

  async delete(name: string): Promise<void> {
    const key = this.ctx.keys.kv(name);
    await this.ctx.call(key, () => this.ctx.exec(["DEL", key]));
  }
}

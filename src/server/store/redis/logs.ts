import { randomUUID } from "node:crypto";
import { z } from "zod";
import {
  type AwakeInterval,
  awakeIntervalSchema,
  type LifecycleEvent,
  lifecycleEventSchema,
  type NewLifecycleEvent,
} from "../../domain/events";
import { parseStoredJson } from "../stored-data";
import type { AwakeLog, EventLog } from "../types";
import { parseReply, type RedisContext } from "./context";

const textList = z.array(z.string());

/** A list of event JSON, newest first, trimmed to the cap in the same transaction. */
export class RedisEvents implements EventLog {
  constructor(private readonly ctx: RedisContext) {}

  async append(event: NewLifecycleEvent): Promise<LifecycleEvent> {
    const full: LifecycleEvent = { id: randomUUID(), ...event };
    const key = this.ctx.keys.events;
    await this.ctx.call(key, () =>
      this.ctx.redis
        .multi()
        .lpush(key, JSON.stringify(full))
        .ltrim(key, 0, this.ctx.opts.eventCap - 1)
        .exec(),
    );
    return full;
  }

  async list(limit: number): Promise<LifecycleEvent[]> {
    if (limit <= 0) return [];
    const key = this.ctx.keys.events;
    const raw = await this.ctx.call(key, () => this.ctx.exec(["LRANGE", key, 0, limit - 1]));
    return parseReply(textList, raw, "events.list").map((e) =>
      parseStoredJson(lifecycleEventSchema, e, key),
    );
  }
}

/** A sorted set of interval JSON scored by end time, trimmed to the cap. */
export class RedisAwake implements AwakeLog {
  constructor(private readonly ctx: RedisContext) {}

  async record(interval: AwakeInterval): Promise<void> {
    const { sandboxId, start, end } = interval;
    const key = this.ctx.keys.awake;
    await this.ctx.call(key, () =>
      this.ctx.redis
        .multi()
        .zadd(key, { score: end, member: JSON.stringify({ sandboxId, start, end }) })
        .zremrangebyrank(key, 0, -(this.ctx.opts.intervalCap + 1))
        .exec(),
    );
  }

  async list(since: number): Promise<AwakeInterval[]> {
    const key = this.ctx.keys.awake;
    const raw = await this.ctx.call(key, () =>
      this.ctx.exec(["ZRANGEBYSCORE", key, since, "+inf"]),
    );
    return parseReply(textList, raw, "awake.list")
      .map((m) => parseStoredJson(awakeIntervalSchema, m, key))
      .sort((a, b) => a.start - b.start || a.end - b.end);
  }
}

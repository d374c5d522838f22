import { resolveStoreOptions } from "../store-options";
import type { Store, StoreOptions } from "../types";
import { StoreDataError, StoreUnavailableError } from "../types";
import type { RedisConnection } from "./client";
import type { RedisContext } from "./context";
import { RedisDeliveries } from "./deliveries";
import { RedisMessageQueue } from "./inbox";
import { redisKeys } from "./keys";
import { RedisLocks } from "./locks";
import { RedisAwake, RedisEvents } from "./logs";
import { RedisCounters, RedisKv, RedisSchedule } from "./records";
import { RedisHeartbeats, RedisState } from "./state";
import { RedisUsage } from "./usage";

/**
 * The redis adapter, over Upstash REST or plain Redis over TCP (same client, different
 * requester). Atomic operations are Lua scripts (one EVALSHA each; the client falls back to
 * EVAL once when the server has not cached the script); the rest are single commands or
 * one pipelined batch. docs/store.md lists the commands and round trips per operation.
 */
export class RedisStore implements Store {
  readonly kind = "redis" as const;
  readonly description: string;
  readonly state: RedisState;
  readonly locks: RedisLocks;
  readonly heartbeats: RedisHeartbeats;
  readonly events: RedisEvents;
  readonly awake: RedisAwake;
  readonly inbox: RedisMessageQueue;
  readonly outbox: RedisMessageQueue;
  readonly schedule: RedisSchedule;
  readonly counters: RedisCounters;
  readonly kv: RedisKv;
  readonly usage: RedisUsage;
  readonly deliveries: RedisDeliveries;
  private readonly ctx: RedisContext;
  /** REST has no connection to close; this makes a closed store fail alike on both transports. */
  private closed = false;

  constructor(
    private readonly conn: RedisConnection,
    options: StoreOptions,
  ) {
    const opts = resolveStoreOptions(options);
    this.description = conn.description;
    this.ctx = {
      redis: conn.redis,
      keys: redisKeys(opts.instance),
      opts,
      call: (key, fn) => this.call(key, fn),
      exec: (command) => conn.redis.exec<unknown>(command),
    };
    this.state = new RedisState(this.ctx);
    this.locks = new RedisLocks(this.ctx);
    this.heartbeats = new RedisHeartbeats(this.ctx);
    this.events = new RedisEvents(this.ctx);
    this.awake = new RedisAwake(this.ctx);
    this.inbox = new RedisMessageQueue(this.ctx, this.ctx.keys.queue("inbox"));
    this.outbox = new RedisMessageQueue(this.ctx, this.ctx.keys.queue("outbox"));
    this.schedule = new RedisSchedule(this.ctx);
    this.counters = new RedisCounters(this.ctx);
    this.kv = new RedisKv(this.ctx);
    this.usage = new RedisUsage(this.ctx);
    this.deliveries = new RedisDeliveries(this.ctx);
  }

  async ping(): Promise<void> {
    await this.call(this.ctx.keys.prefix, () => this.conn.redis.ping());
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.conn.close();
  }

  /** Every backend call goes through here, so no failure can pass for "empty" or "not held". */
  private async call<T>(key: string, fn: () => Promise<T>): Promise<T> {
    if (this.closed) throw new StoreUnavailableError(`${this.description}: store is closed`);
    try {
      return await fn();
    } catch (err) {
      if (err instanceof StoreUnavailableError || err instanceof StoreDataError) throw err;
      // The REST client appends the whole command (with its data) to messages; keep it out of logs.
      const message = (err instanceof Error ? err.message : String(err)).replace(
        /, command was: [\s\S]*$/,
        "",
      );
      if (message.includes("WRONGTYPE")) {
        throw new StoreDataError(
          key,
          "holds a different kind of redis value than ClawRun stores there",
        );
      }
      throw new StoreUnavailableError(`${this.description} failed: ${message}`, err);
    }
  }
}

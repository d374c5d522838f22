import { randomUUID } from "node:crypto";
import { z } from "zod";
import {
  type AwakeInterval,
  awakeIntervalSchema,
  type LifecycleEvent,
  lifecycleEventSchema,
  type NewLifecycleEvent,
} from "../domain/events";
import { type StoredHeartbeat, storedHeartbeatSchema } from "../domain/heartbeat-record";
import { type InstanceState, instanceStateSchema, type Versioned } from "../domain/instance-state";
import { type Schedule, scheduleSchema } from "../domain/schedule";
import type { RedisConnection } from "./redis-client";
import { parseReply, RedisInbox } from "./redis-inbox";
import { type RedisKeys, redisKeys } from "./redis-keys";
import {
  ACQUIRE_LOCK,
  CAS_STATE,
  HIT,
  RECORD_HEARTBEAT,
  RELEASE_LOCK,
  RENEW_LOCK,
} from "./redis-scripts";
import {
  HEARTBEAT_RETENTION_MS,
  type ResolvedStoreOptions,
  resolveStoreOptions,
} from "./store-options";
import { parseStoredJson, parseStoredVersion } from "./stored-data";
import type { CasResult, HeartbeatRecord, LockGrant, Store, StoreOptions } from "./types";
import { StoreDataError, StoreUnavailableError } from "./types";

const nullableText = z.string().nullable();
const flag = z.union([z.literal(0), z.literal(1)]);
const stateReply = z.tuple([nullableText, nullableText]);
const casReply = z.union([
  z.tuple([z.literal(1), z.number()]),
  z.tuple([z.literal(0), nullableText, nullableText]),
]);
const heartbeatReply = z.tuple([flag, nullableText, nullableText, nullableText]);
const textList = z.array(z.string());

/**
 * The redis adapter, over Upstash REST or plain Redis over TCP (same client, different
 * requester). Atomic operations are Lua scripts (one EVALSHA each; the client falls back to
 * EVAL once when the server has not cached the script); the rest are single commands or
 * one pipelined batch. docs/store.md lists the commands and round trips per operation.
 */
export class RedisStore implements Store {
  readonly kind = "redis" as const;
  readonly description: string;
  private readonly keys: RedisKeys;
  private readonly opts: ResolvedStoreOptions;
  private readonly inbox: RedisInbox;
  private readonly scripts;
  /** REST has no connection to close; this makes a closed store fail alike on both transports. */
  private closed = false;

  constructor(
    private readonly conn: RedisConnection,
    options: StoreOptions,
  ) {
    this.opts = resolveStoreOptions(options);
    this.keys = redisKeys(this.opts.instance);
    this.description = conn.description;
    const s = (src: string) => conn.redis.createScript(src);
    this.scripts = {
      cas: s(CAS_STATE),
      heartbeat: s(RECORD_HEARTBEAT),
      acquire: s(ACQUIRE_LOCK),
      renew: s(RENEW_LOCK),
      release: s(RELEASE_LOCK),
      hit: s(HIT),
    };
    this.inbox = new RedisInbox({
      redis: conn.redis,
      keys: this.keys,
      dedupeWindowMs: this.opts.dedupeWindowMs,
      call: (key, fn) => this.call(key, fn),
    });
  }

  async ping(): Promise<void> {
    await this.call(this.keys.prefix, () => this.conn.redis.ping());
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.conn.close();
  }

  // ── instance state ────────────────────────────────────────────────
  async getState(): Promise<Versioned<InstanceState> | null> {
    const key = this.keys.state;
    const raw = await this.call(key, () => this.exec(["HMGET", key, "version", "value"]));
    const [version, value] = parseReply(stateReply, raw, "getState");
    return this.stateFrom(version, value);
  }

  async compareAndSetState(expectedVersion: number, next: InstanceState): Promise<CasResult> {
    const key = this.keys.state;
    const raw = await this.call(key, () =>
      this.scripts.cas.exec([key], [String(expectedVersion), JSON.stringify(next)]),
    );
    const reply = parseReply(casReply, raw, "compareAndSetState");
    if (reply[0] === 1) return { ok: true, version: reply[1] };
    return { ok: false, current: this.stateFrom(reply[1], reply[2]) };
  }

  // ── locks ─────────────────────────────────────────────────────────
  async acquireLock(name: string, owner: string, leaseMs: number): Promise<LockGrant | null> {
    const lease = wholeMs(leaseMs);
    const now = Date.now(); // before the call: the reported expiry errs on the early side
    const key = this.keys.lock(name);
    const raw = await this.call(key, () =>
      this.scripts.acquire.exec([key, this.keys.fence(name)], [owner, String(lease)]),
    );
    const fence = parseReply(z.number().nullable(), raw, "acquireLock");
    return fence === null ? null : { name, owner, fence, expiresAt: now + lease };
  }

  async renewLock(name: string, owner: string, leaseMs: number): Promise<boolean> {
    const key = this.keys.lock(name);
    const raw = await this.call(key, () =>
      this.scripts.renew.exec([key], [owner, String(wholeMs(leaseMs))]),
    );
    return parseReply(flag, raw, "renewLock") === 1;
  }

  async releaseLock(name: string, owner: string): Promise<boolean> {
    const key = this.keys.lock(name);
    const raw = await this.call(key, () => this.scripts.release.exec([key], [owner]));
    return parseReply(flag, raw, "releaseLock") === 1;
  }

  // ── heartbeats ────────────────────────────────────────────────────
  async recordHeartbeat(hb: StoredHeartbeat): Promise<HeartbeatRecord> {
    const key = this.keys.heartbeat(hb.sandboxId);
    const raw = await this.call(key, () =>
      this.scripts.heartbeat.exec(
        [key, this.keys.state],
        [String(hb.sentAt), JSON.stringify(hb), String(HEARTBEAT_RETENTION_MS)],
      ),
    );
    const [fresh, version, value, previous] = parseReply(heartbeatReply, raw, "recordHeartbeat");
    return {
      fresh: fresh === 1,
      previous: previous === null ? null : parseStoredJson(storedHeartbeatSchema, previous, key),
      state: this.stateFrom(version, value),
    };
  }

  async getHeartbeat(sandboxId: string): Promise<StoredHeartbeat | null> {
    const key = this.keys.heartbeat(sandboxId);
    const raw = await this.call(key, () => this.exec(["HGET", key, "value"]));
    return raw === null ? null : parseStoredJson(storedHeartbeatSchema, raw, key);
  }

  // ── events ────────────────────────────────────────────────────────
  async appendEvent(event: NewLifecycleEvent): Promise<LifecycleEvent> {
    const full: LifecycleEvent = { id: randomUUID(), ...event };
    const key = this.keys.events;
    await this.call(key, () =>
      this.conn.redis
        .multi()
        .lpush(key, JSON.stringify(full))
        .ltrim(key, 0, this.opts.eventCap - 1)
        .exec(),
    );
    return full;
  }

  async listEvents(limit: number): Promise<LifecycleEvent[]> {
    if (limit <= 0) return [];
    const key = this.keys.events;
    const raw = await this.call(key, () => this.exec(["LRANGE", key, 0, limit - 1]));
    return parseReply(textList, raw, "listEvents").map((e) =>
      parseStoredJson(lifecycleEventSchema, e, key),
    );
  }

  async recordAwakeInterval(interval: AwakeInterval): Promise<void> {
    const { sandboxId, start, end } = interval;
    const key = this.keys.awake;
    await this.call(key, () =>
      this.conn.redis
        .multi()
        .zadd(key, { score: end, member: JSON.stringify({ sandboxId, start, end }) })
        .zremrangebyrank(key, 0, -(this.opts.intervalCap + 1))
        .exec(),
    );
  }

  async listAwakeIntervals(since: number): Promise<AwakeInterval[]> {
    const key = this.keys.awake;
    const raw = await this.call(key, () => this.exec(["ZRANGEBYSCORE", key, since, "+inf"]));
    return parseReply(textList, raw, "listAwakeIntervals")
      .map((m) => parseStoredJson(awakeIntervalSchema, m, key))
      .sort((a, b) => a.start - b.start || a.end - b.end);
  }

  // ── inbox ─────────────────────────────────────────────────────────
  enqueue: Store["enqueue"] = (message) => this.inbox.enqueue(message);
  listPending: Store["listPending"] = (limit) => this.inbox.list("pending", limit);
  claim: Store["claim"] = (now, visibilityMs, limit) => this.inbox.claim(now, visibilityMs, limit);
  ack: Store["ack"] = (id) => this.inbox.ack(id);
  release: Store["release"] = (id) => this.inbox.release(id);
  fail: Store["fail"] = (id, error, opts) => this.inbox.fail(id, error, opts);
  listDead: Store["listDead"] = (limit) => this.inbox.list("dead", limit);
  retryDead: Store["retryDead"] = (id) => this.inbox.retryDead(id);
  countInbox: Store["countInbox"] = () => this.inbox.count();

  // ── schedule ──────────────────────────────────────────────────────
  async getSchedule(): Promise<Schedule | null> {
    const key = this.keys.schedule;
    const raw = await this.call(key, () => this.exec(["GET", key]));
    return raw === null ? null : parseStoredJson(scheduleSchema, raw, key);
  }

  async setSchedule(schedule: Schedule): Promise<void> {
    const key = this.keys.schedule;
    await this.call(key, () => this.exec(["SET", key, JSON.stringify(schedule)]));
  }

  // ── small records ─────────────────────────────────────────────────
  async kvGet(name: string): Promise<string | null> {
    const key = this.keys.kv(name);
    const raw = await this.call(key, () => this.exec(["GET", key]));
    return raw === null ? null : String(raw);
  }

  async kvSet(name: string, value: string, ttlMs: number | null): Promise<void> {
    const key = this.keys.kv(name);
    const args: [string, ...string[]] =
      ttlMs === null ? ["SET", key, value] : ["SET", key, value, "PX", String(wholeMs(ttlMs))];
    await this.call(key, () => this.exec(args));
  }

  async kvDelete(name: string): Promise<void> {
    const key = this.keys.kv(name);
    await this.call(key, () => this.exec(["DEL", key]));
  }

  // ── counters ──────────────────────────────────────────────────────
  async hit(name: string, windowMs: number): Promise<{ count: number; resetAt: number }> {
    const key = this.keys.hit(name);
    const raw = await this.call(key, () =>
      this.scripts.hit.exec([key], [String(wholeMs(windowMs))]),
    );
    const [count, msLeft] = parseReply(z.tuple([z.number(), z.number()]), raw, "hit");
    // Clock read after the reply: resetAt may be late by the reply's latency, never early.
    return { count, resetAt: Date.now() + msLeft };
  }

  async readHits(name: string): Promise<number> {
    const key = this.keys.hit(name);
    const raw = await this.call(key, () => this.exec(["GET", key]));
    if (raw === null) return 0;
    const count = Number(raw);
    if (!Number.isInteger(count)) throw new StoreDataError(key, "expected an integer counter");
    return count;
  }

  // ── plumbing ──────────────────────────────────────────────────────
  private stateFrom(version: string | null, value: string | null): Versioned<InstanceState> | null {
    if (version === null && value === null) return null;
    const key = this.keys.state;
    return {
      version: parseStoredVersion(version, key),
      value: parseStoredJson(instanceStateSchema, value, key),
    };
  }

  private exec(command: [string, ...(string | number)[]]): Promise<unknown> {
    return this.conn.redis.exec<unknown>(command);
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

/** Redis wants whole, positive milliseconds for PX/PEXPIRE. */
function wholeMs(ms: number): number {
  return Math.max(1, Math.ceil(ms));
}

import { ClawrunError } from "../../protocol/clawrun-error";
import type { AwakeInterval, LifecycleEvent, NewLifecycleEvent } from "../domain/events";
import type { StoredHeartbeat } from "../domain/heartbeat-record";
import type { InboxMessage, NewInboxMessage } from "../domain/inbox-message";
import type { InstanceState, Versioned } from "../domain/instance-state";
import type { Schedule } from "../domain/schedule";

/**
 * The state store as narrow ports, in the domain's words: each consumer takes only the ports
 * it uses. Two adapters (sqlite, redis) pass one contract suite (tests/contracts/store); every
 * key is scoped to the instance name given at construction.
 *
 * Faults: an unreachable backend throws StoreUnavailableError (never "empty"/"no lock");
 * stored data that fails its schema throws StoreDataError naming the key.
 */
export interface Store {
  readonly kind: "sqlite" | "redis";
  /** Human description for /api/health, without credentials (e.g. "sqlite .clawrun/store.db"). */
  readonly description: string;
  /** Cheap liveness check (one round trip). */
  ping(): Promise<void>;
  close(): Promise<void>;
  readonly state: StateStore;
  readonly locks: LockStore;
  readonly heartbeats: HeartbeatStore;
  readonly events: EventLog;
  readonly awake: AwakeLog;
  readonly inbox: MessageQueue;
  /** Replies waiting to be sent back to the platforms. */
  readonly outbox: MessageQueue;
  readonly schedule: ScheduleStore;
  readonly counters: CounterStore;
  readonly kv: KvStore;
  readonly usage: UsageStore;
  /** Deliveries under way (which conversation a model call is for). */
  readonly deliveries: OpenDeliveryStore;
}

/** The instance's lifecycle state, versioned for compare-and-set. */
export interface StateStore {
  /** Null until the first write. */
  get(): Promise<Versioned<InstanceState> | null>;
  /**
   * Writes `next` only if the stored version equals `expectedVersion` (0 = not yet written).
   * A stale writer gets `{ ok: false, current }` and nothing changes.
   */
  compareAndSet(expectedVersion: number, next: InstanceState): Promise<CasResult>;
  /**
   * The state with the inbox's and the outbox's pending counts, in one backend command: what
   * the tick of an agent at rest needs to see that nothing changed (docs/lifecycle.md,
   * "The quiet tick").
   */
  glance(): Promise<StateGlance>;
}

export interface StateGlance {
  state: Versioned<InstanceState> | null;
  inboxPending: number;
  outboxPending: number;
}

/** Leases with fencing numbers (the lifecycle lock). */
export interface LockStore {
  /** Returns null at once when another owner holds an unexpired lease. */
  acquire(name: string, owner: string, leaseMs: number): Promise<LockGrant | null>;
  /** Extends the lease; false if `owner` no longer holds it (expired and/or taken). */
  renew(name: string, owner: string, leaseMs: number): Promise<boolean>;
  /** Releases only when `owner` holds it; false otherwise. */
  release(name: string, owner: string): Promise<boolean>;
}

export interface HeartbeatStore {
  /**
   * The heartbeat hot path in ONE round trip: records `hb` unless a heartbeat for the same
   * sandbox with `sentAt >= hb.sentAt` is stored (then `fresh: false`: a replay), and
   * returns the instance state read in the same trip.
   */
  record(hb: StoredHeartbeat): Promise<HeartbeatRecord>;
  get(sandboxId: string): Promise<StoredHeartbeat | null>;
}

/** The capped lifecycle event log. */
export interface EventLog {
  append(event: NewLifecycleEvent): Promise<LifecycleEvent>;
  /** Newest first. */
  list(limit: number): Promise<LifecycleEvent[]>;
}

/** Awake (running) intervals, for "awake vs asleep" accounting; capped like events. */
export interface AwakeLog {
  record(interval: AwakeInterval): Promise<void>;
  /** Intervals that end at or after `since`, oldest first. */
  list(since: number): Promise<AwakeInterval[]>;
}

/**
 * A durable queue of messages, in arrival order per conversation: the inbox (channel messages
 * for the agent) and the outbox (the agent's replies for the platforms) are both one.
 */
export interface MessageQueue {
  /**
   * Stores the message unless its id was seen within the dedupe window (then `duplicate`,
   * nothing changes, `message` is null when the earlier one was already delivered).
   */
  enqueue(message: NewInboxMessage): Promise<{ duplicate: boolean; message: InboxMessage | null }>;
  /** Pending (not dead) messages in arrival order. */
  listPending(limit: number): Promise<InboxMessage[]>;
  /**
   * Claims up to `limit` due messages in arrival order for `visibilityMs`. Per conversation
   * order is kept: a message is skipped while an earlier one of its conversation is pending
   * but not claimable (claimed by someone else, or waiting for its retry time).
   */
  claim(now: number, visibilityMs: number, limit: number): Promise<InboxMessage[]>;
  /** Gives a claimed message back without counting an attempt (the deliverer chose not to deliver). */
  release(id: string): Promise<boolean>;
  /**
   * Gives a claimed message back without counting an attempt, not due before `notBefore`
   * (the receiver asked to wait, e.g. a platform's 429 with retry_after).
   */
  defer(id: string, notBefore: number): Promise<boolean>;
  /** Removes a delivered message (its id stays in the dedupe window). */
  ack(id: string): Promise<boolean>;
  /**
   * Records a failed attempt: attempts+1; below `maxAttempts` it becomes due again at
   * `retryAt`, otherwise it moves to the dead-letter list.
   */
  fail(
    id: string,
    error: string,
    opts: { maxAttempts: number; retryAt: number },
  ): Promise<"retry" | "dead" | "missing">;
  /** Dead-letter entries, newest first. */
  listDead(limit: number): Promise<InboxMessage[]>;
  /** Moves a dead-letter entry back to pending (attempts reset, keeps its arrival order). */
  retryDead(id: string): Promise<boolean>;
  count(): Promise<{ pending: number; dead: number }>;
}

export interface ScheduleStore {
  get(): Promise<Schedule | null>;
  set(schedule: Schedule): Promise<void>;
}

/** Fixed-window counters (rate limits). */
export interface CounterStore {
  /** Increments `key` and returns the count within the window. */
  hit(key: string, windowMs: number): Promise<{ count: number; resetAt: number }>;
  /** The count of `key` in its current window (0 when none), without incrementing. */
  read(key: string): Promise<number>;
  /** Ends `key`'s window now (a successful sign-in forgets the failures before it). */
  clear(key: string): Promise<void>;
}

/** Small string records, optionally expiring (channel bookkeeping, the last log tail). */
export interface KvStore {
  /** The value, or null when unset or expired. */
  get(key: string): Promise<string | null>;
  /** Sets `key`; it expires after `ttlMs` (null: never). */
  set(key: string, value: string, ttlMs: number | null): Promise<void>;
  delete(key: string): Promise<void>;
}

/**
 * Model spend per UTC day and month, in integer micro-USD. A period's `total` counts settled
 * cost plus reservations still held, so racing calls see each other's holds: this is what
 * bounds a cap's overshoot to one call's reservation. Per-model figures count settled calls only.
 */
export interface UsageStore {
  /**
   * In one atomic step: holds `amount` in both periods unless that would take the day past
   * `dayLimit` + today's raise or the month past `monthLimit` (null: no limit). Returns the
   * totals before the hold and today's raise, whether it held or not. A refusal marks its
   * period reached at the cap it hit (today's raise included), in the same step.
   */
  reserve(r: UsageReservation): Promise<{
    held: boolean;
    /**
     * The period this refusal was the first to mark reached at its current cap; null when held
     * or already marked. So "cap reached" is told once per period and cap value (a raise is a
     * new value), however many calls are refused, on however many servers.
     */
    reached: "daily" | "monthly" | null;
    dayMicros: number;
    monthMicros: number;
    raiseMicros: number;
    /** Deliveries open at `r.now`, read in the same step (attribution costs no extra command). */
    open: OpenDelivery[];
    /** The instance state, read in the same step: the gateway checks the caller's sandbox with it. */
    state: Versioned<InstanceState> | null;
  }>;
  /**
   * Replaces a hold of `reserved` by the call's real `cost` and adds the call to its model's
   * figures (`model` null: nothing was produced, the hold is only released). `warned` lists
   * the periods whose warning line this settlement was the first to reach.
   */
  settle(s: UsageSettlement): Promise<{ warned: ("daily" | "monthly")[] }>;
  /** Adds `micros` to today's daily cap (the operator's "raise for today"); returns the raise. */
  raise(day: string, micros: number): Promise<number>;
  /** Totals and per-model figures of a day and a month. */
  read(day: string, month: string): Promise<UsageTotals>;
}

export interface UsageReservation {
  now: number;
  day: string;
  month: string;
  amount: number;
  dayLimit: number | null;
  monthLimit: number | null;
}

export interface UsageSettlement {
  day: string;
  month: string;
  reserved: number;
  cost: number;
  model: string | null;
  /** The conversation the call is attributed to ("" : unattributed); counted with `model`. */
  conversation: string;
  tokens: { input: number; output: number; cachedInput: number };
  /** Micro-USD lines at which a period's warning is due (null: none). */
  warnDayAt: number | null;
  warnMonthAt: number | null;
}

export interface ModelSpend {
  costMicros: number;
  calls: number;
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
}

export interface ConversationSpend {
  costMicros: number;
  calls: number;
}

export interface UsageTotals {
  day: {
    totalMicros: number;
    raiseMicros: number;
    /** The cap (micro-USD, today's raise included) a refusal last marked reached; null: none. */
    reachedMicros: number | null;
    models: Record<string, ModelSpend>;
    /** Keyed by conversation ("" : calls made while no single delivery was open). */
    conversations: Record<string, ConversationSpend>;
  };
  month: {
    totalMicros: number;
    reachedMicros: number | null;
    models: Record<string, ModelSpend>;
    conversations: Record<string, ConversationSpend>;
  };
}

/** A message being handed to the agent now: model calls meanwhile are for its conversation. */
export interface OpenDelivery {
  id: string;
  channel: string;
  conversation: string;
  /** The channel's reply data (a cap notice is sent to the conversation with it). */
  meta: Record<string, unknown>;
  /** When the delivery times out at the latest; after it the mark counts as closed. */
  until: number;
}

/**
 * Marks of deliveries under way, several servers at once. A mark left by a server that died
 * counts as closed after its `until`; `open` drops such stale marks.
 */
export interface OpenDeliveryStore {
  open(d: OpenDelivery, now: number): Promise<void>;
  close(id: string): Promise<void>;
}

export interface HeartbeatRecord {
  /** False for a replay: nothing was written. */
  fresh: boolean;
  /** The heartbeat stored for this sandbox before this call (to notice daemon restarts). */
  previous: StoredHeartbeat | null;
  state: Versioned<InstanceState> | null;
}

export type CasResult =
  | { ok: true; version: number }
  | { ok: false; current: Versioned<InstanceState> | null };

export interface LockGrant {
  name: string;
  owner: string;
  /** Strictly increases with every acquisition of this lock name (fencing token). */
  fence: number;
  expiresAt: number;
}

export interface StoreOptions {
  /** Scopes every key. */
  instance: string;
  /** Max events kept (oldest dropped). */
  eventCap?: number;
  /** Max awake intervals kept. */
  intervalCap?: number;
  /** How long a delivered/enqueued message id is remembered for dedupe. */
  dedupeWindowMs?: number;
}

export const STORE_DEFAULTS = {
  eventCap: 2_000,
  intervalCap: 5_000,
  dedupeWindowMs: 24 * 60 * 60_000,
} as const;

export class StoreUnavailableError extends ClawrunError {
  static override readonly errorName = "StoreUnavailableError";
  constructor(message: string, cause?: unknown) {
    super("store_unavailable", message, { status: 503, cause, headers: { "retry-after": "5" } });
  }
}

export class StoreDataError extends ClawrunError {
  static override readonly errorName = "StoreDataError";
  constructor(
    readonly key: string,
    detail: string,
  ) {
    super("store_data_invalid", `stored data at "${key}" is invalid: ${detail}`, { status: 500 });
  }
}

import type { NewLifecycleEvent } from "../../../src/server/domain/events";
import type { StoredHeartbeat } from "../../../src/server/domain/heartbeat-record";
import type { NewInboxMessage } from "../../../src/server/domain/inbox-message";
import type { InstanceState } from "../../../src/server/domain/instance-state";
import { INITIAL_STATE } from "../../../src/server/sandbox/state-cell";
import type { Store, StoreOptions, UsageSettlement } from "../../../src/server/store/types";

/** What the contract suite needs from each adapter's test setup. */
export interface StoreHarness {
  /** A new Store object with its own connection, on the backend every other open() shares. */
  open(instance: string, opts?: Omit<StoreOptions, "instance">): Store;
  /**
   * Overwrites what `instance` stored for `target` with garbage, directly in the backend
   * (the store must already have written it). Returns the key the StoreDataError must name.
   */
  corrupt(instance: string, target: CorruptTarget): Promise<string>;
  /** A store whose backend was reachable and then went away. */
  unreachable(instance: string): Promise<Store>;
}

/** Fixed ids the corrupt() targets refer to. */
export const CORRUPT_IDS = { sandboxId: "sb-corrupt", messageId: "msg-corrupt" } as const;

export type CorruptTarget = "state" | "heartbeat" | "events" | "intervals" | "inbox" | "schedule";

let counter = 0;
/** A fresh instance name per test, so tests on one backend never see each other. */
export function freshInstance(label: string): string {
  counter += 1;
  return `t-${label}-${process.pid}-${Date.now().toString(36)}-${counter}`;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function state(overrides: Partial<InstanceState> = {}): InstanceState {
  return {
    ...INITIAL_STATE,
    status: "running",
    since: 1_000,
    reason: "test",
    sandboxId: "sb-1",
    sandboxCreatedAt: 900,
    ttlDeadline: 5_000,
    lastExtend: { at: 950, reason: "grace" },
    ...overrides,
  };
}

export function heartbeat(overrides: Partial<StoredHeartbeat> = {}): StoredHeartbeat {
  return {
    sandboxId: "sb-1",
    sentAt: 10_000,
    receivedAt: 10_005,
    lastChangedAt: 9_000,
    sandboxCreatedAt: 900,
    root: "/sandbox",
    daemonStatus: "running",
    daemonRestarts: 0,
    ...overrides,
  };
}

export function event(overrides: Partial<NewLifecycleEvent> = {}): NewLifecycleEvent {
  return {
    at: 1_000,
    type: "status.running",
    level: "info",
    sandboxId: "sb-1",
    message: "running",
    details: { n: 1 },
    ...overrides,
  };
}

export function message(id: string, overrides: Partial<NewInboxMessage> = {}): NewInboxMessage {
  return {
    id,
    channel: "telegram",
    conversation: "chat-1",
    text: `text of ${id} — ünïcødé 🦀`,
    receivedAt: 2_000,
    // Deep and large values must survive untouched (no Lua JSON round trip).
    meta: { chatId: 9_007_199_254_740_991, list: [], nested: { a: [1, "x"] } },
    ...overrides,
  };
}

/** Every operation of the port, each called once; the type forces new operations to be listed. */
type Ports = Omit<Store, "kind" | "description" | "close" | "ping">;
type OperationName =
  | "ping"
  | { [K in keyof Ports]: `${K & string}.${keyof Ports[K] & string}` }[keyof Ports];

export const EVERY_OPERATION: Record<OperationName, (s: Store) => Promise<unknown>> = {
  ping: (s) => s.ping(),
  "state.get": (s) => s.state.get(),
  "state.compareAndSet": (s) => s.state.compareAndSet(0, state()),
  "state.glance": (s) => s.state.glance(),
  "locks.acquire": (s) => s.locks.acquire("lifecycle", "owner", 1_000),
  "locks.renew": (s) => s.locks.renew("lifecycle", "owner", 1_000),
  "locks.release": (s) => s.locks.release("lifecycle", "owner"),
  "heartbeats.record": (s) => s.heartbeats.record(heartbeat()),
  "heartbeats.get": (s) => s.heartbeats.get("sb-1"),
  "events.append": (s) => s.events.append(event()),
  "events.list": (s) => s.events.list(10),
  "awake.record": (s) => s.awake.record({ sandboxId: "sb-1", start: 1, end: 2 }),
  "awake.list": (s) => s.awake.list(0),
  "inbox.enqueue": (s) => s.inbox.enqueue(message("m-1")),
  "inbox.listPending": (s) => s.inbox.listPending(10),
  "inbox.claim": (s) => s.inbox.claim(Date.now(), 1_000, 10),
  "inbox.ack": (s) => s.inbox.ack("m-1"),
  "inbox.release": (s) => s.inbox.release("m-1"),
  "inbox.fail": (s) => s.inbox.fail("m-1", "boom", { maxAttempts: 3, retryAt: 0 }),
  "inbox.listDead": (s) => s.inbox.listDead(10),
  "inbox.retryDead": (s) => s.inbox.retryDead("m-1"),
  "inbox.count": (s) => s.inbox.count(),
  "inbox.defer": (s) => s.inbox.defer("m-1", 0),
  "outbox.enqueue": (s) => s.outbox.enqueue(message("m-1")),
  "outbox.listPending": (s) => s.outbox.listPending(10),
  "outbox.claim": (s) => s.outbox.claim(Date.now(), 1_000, 10),
  "outbox.ack": (s) => s.outbox.ack("m-1"),
  "outbox.release": (s) => s.outbox.release("m-1"),
  "outbox.fail": (s) => s.outbox.fail("m-1", "boom", { maxAttempts: 3, retryAt: 0 }),
  "outbox.listDead": (s) => s.outbox.listDead(10),
  "outbox.retryDead": (s) => s.outbox.retryDead("m-1"),
  "outbox.count": (s) => s.outbox.count(),
  "outbox.defer": (s) => s.outbox.defer("m-1", 0),
  "schedule.get": (s) => s.schedule.get(),
  "schedule.set": (s) =>
    s.schedule.set({ nextDueAt: null, nextJob: null, lastRun: {}, agentJobs: [] }),
  "kv.get": (s) => s.kv.get("k"),
  "kv.set": (s) => s.kv.set("k", "v", 1_000),
  "kv.delete": (s) => s.kv.delete("k"),
  "counters.hit": (s) => s.counters.hit("k", 1_000),
  "counters.read": (s) => s.counters.read("k"),
  "counters.clear": (s) => s.counters.clear("k"),
  "usage.reserve": (s) => s.usage.reserve(USAGE_CALL),
  "usage.settle": (s) => s.usage.settle(usageSettlement()),
  "usage.raise": (s) => s.usage.raise("2026-12-02", 1),
  "usage.read": (s) => s.usage.read("2026-12-02", "2026-12"),
  "deliveries.open": (s) =>
    s.deliveries.open(
      { id: "m-1", channel: "generic", conversation: "c", meta: {}, until: 5_000 },
      1_000,
    ),
  "deliveries.close": (s) => s.deliveries.close("m-1"),
};

export const USAGE_CALL = {
  now: 1_000,
  day: "2026-12-02",
  month: "2026-12",
  amount: 100,
  dayLimit: 1_000,
  monthLimit: 10_000,
} as const;

export function usageSettlement(overrides: Partial<UsageSettlement> = {}): UsageSettlement {
  return {
    day: "2026-12-02",
    month: "2026-12",
    reserved: 100,
    cost: 40,
    model: "gpt-4o",
    conversation: "",
    tokens: { input: 10, output: 2, cachedInput: 1 },
    warnDayAt: null,
    warnMonthAt: null,
    ...overrides,
  };
}

import type { NewLifecycleEvent } from "../../../src/server/domain/events";
import type { StoredHeartbeat } from "../../../src/server/domain/heartbeat-record";
import type { NewInboxMessage } from "../../../src/server/domain/inbox-message";
import type { InstanceState } from "../../../src/server/domain/instance-state";
import { INITIAL_STATE } from "../../../src/server/sandbox/state-cell";
import type { Store, StoreOptions } from "../../../src/server/store/types";

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
export const EVERY_OPERATION: Record<
  Exclude<keyof Store, "kind" | "description" | "close">,
  (s: Store) => Promise<unknown>
> = {
  ping: (s) => s.ping(),
  getState: (s) => s.getState(),
  compareAndSetState: (s) => s.compareAndSetState(0, state()),
  acquireLock: (s) => s.acquireLock("lifecycle", "owner", 1_000),
  renewLock: (s) => s.renewLock("lifecycle", "owner", 1_000),
  releaseLock: (s) => s.releaseLock("lifecycle", "owner"),
  recordHeartbeat: (s) => s.recordHeartbeat(heartbeat()),
  getHeartbeat: (s) => s.getHeartbeat("sb-1"),
  appendEvent: (s) => s.appendEvent(event()),
  listEvents: (s) => s.listEvents(10),
  recordAwakeInterval: (s) => s.recordAwakeInterval({ sandboxId: "sb-1", start: 1, end: 2 }),
  listAwakeIntervals: (s) => s.listAwakeIntervals(0),
  enqueue: (s) => s.enqueue(message("m-1")),
  listPending: (s) => s.listPending(10),
  claim: (s) => s.claim(Date.now(), 1_000, 10),
  ack: (s) => s.ack("m-1"),
  release: (s) => s.release("m-1"),
  fail: (s) => s.fail("m-1", "boom", { maxAttempts: 3, retryAt: 0 }),
  listDead: (s) => s.listDead(10),
  retryDead: (s) => s.retryDead("m-1"),
  countInbox: (s) => s.countInbox(),
  getSchedule: (s) => s.getSchedule(),
  setSchedule: (s) => s.setSchedule({ nextDueAt: null, nextJob: null, lastRun: {}, agentJobs: [] }),
  kvGet: (s) => s.kvGet("k"),
  kvSet: (s) => s.kvSet("k", "v", 1_000),
  kvDelete: (s) => s.kvDelete("k"),
  hit: (s) => s.hit("k", 1_000),
  readHits: (s) => s.readHits("k"),
};

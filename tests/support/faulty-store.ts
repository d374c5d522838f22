import { type Store, StoreUnavailableError } from "../../src/server/store/types";

/** Every port method that changes the store ("port.method"). */
export const WRITES: ReadonlySet<string> = new Set([
  "state.compareAndSet",
  "locks.acquire",
  "locks.renew",
  "locks.release",
  "heartbeats.record",
  "events.append",
  "awake.record",
  ...["inbox", "outbox"].flatMap((p) =>
    ["enqueue", "claim", "release", "defer", "ack", "fail", "retryDead"].map((m) => `${p}.${m}`),
  ),
  "schedule.set",
  "counters.hit",
  "counters.clear",
  "kv.set",
  "kv.delete",
  "usage.reserve",
  "usage.settle",
  "usage.raise",
  "deliveries.open",
  "deliveries.close",
]);

export interface FaultyStore {
  store: Store;
  /**
   * After the next inbox insert that stores a message, every write in `failing` (default: all
   * but that insert) throws StoreUnavailableError — as a Redis killed mid-request — until heal().
   */
  failWritesAfterNextInsert(failing?: (op: string) => boolean): void;
  /** From now on, every write in `failing` throws StoreUnavailableError until heal(). */
  failWrites(failing: (op: string) => boolean): void;
  heal(): void;
  /** Writes refused so far, in order. */
  refused: string[];
}

/** Wraps a real store (e.g. the SQLite one) so that writes fail from a chosen moment on. */
export function faultyStore(inner: Store): FaultyStore {
  let armed: ((op: string) => boolean) | null = null;
  let failing: ((op: string) => boolean) | null = null;
  const refused: string[] = [];
  const wrapPort = (name: string, port: object) =>
    new Proxy(port, {
      get(target, prop, receiver) {
        const value = Reflect.get(target, prop, receiver);
        if (typeof value !== "function") return value;
        const op = `${name}.${String(prop)}`;
        return async (...args: unknown[]) => {
          if (failing?.(op) && WRITES.has(op)) {
            refused.push(op);
            throw new StoreUnavailableError(`test: ${op} refused (store down)`);
          }
          const result = await value.apply(target, args);
          if (op === "inbox.enqueue" && armed && !(result as { duplicate: boolean }).duplicate) {
            failing = armed;
            armed = null;
          }
          return result;
        };
      },
    });
  const ports = new Map<string, object>();
  const store = new Proxy(inner, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (typeof prop === "string" && value && typeof value === "object") {
        if (!ports.has(prop)) ports.set(prop, wrapPort(prop, value));
        return ports.get(prop);
      }
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return {
    store,
    refused,
    failWritesAfterNextInsert(f = () => true) {
      armed = f;
    },
    failWrites(f) {
      failing = f;
    },
    heal() {
      armed = null;
      failing = null;
    },
  };
}

import type { Store } from "../../src/server/store/types";

export interface CountingStore {
  store: Store;
  /** Port calls made so far (one call is one round trip on the redis adapter; docs/store.md). */
  calls(): number;
  /** Calls per "port.method" so far. */
  byOperation(): Record<string, number>;
}

/** Wraps every port method of a store to count the calls made through it. */
export function countingStore(inner: Store): CountingStore {
  const counts = new Map<string, number>();
  const wrapPort = (name: string, port: object) =>
    new Proxy(port, {
      get(target, prop, receiver) {
        const value = Reflect.get(target, prop, receiver);
        if (typeof value !== "function") return value;
        return (...args: unknown[]) => {
          const key = `${name}.${String(prop)}`;
          counts.set(key, (counts.get(key) ?? 0) + 1);
          return value.apply(target, args);
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
      if (typeof value === "function" && prop === "ping")
        return (...args: unknown[]) => {
          counts.set("ping", (counts.get("ping") ?? 0) + 1);
          return value.apply(target, args);
        };
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return {
    store,
    calls: () => [...counts.values()].reduce((a, b) => a + b, 0),
    byOperation: () => Object.fromEntries(counts),
  };
}

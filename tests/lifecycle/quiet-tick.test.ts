import { afterEach, expect, it } from "vitest";
import type { SandboxProvider } from "../../src/server/providers/types";
import type { Store } from "../../src/server/store/types";
import { type LifecycleHarness, lifecycleHarness } from "../support/lifecycle-harness";

/**
 * The quiet tick (docs/lifecycle.md): an agent at rest that nothing changed is ticked with one
 * store read and no provider call, and any change — another server's wake and sleep, a queued
 * message — brings the full tick back at once. Real sqlite, local provider, echo agent.
 */

let h: LifecycleHarness | null = null;
afterEach(async () => {
  await h?.stop();
  h = null;
});

/** Counts every call into the provider and into each store port, by name. */
function counting() {
  const calls: string[] = [];
  const count = <T extends object>(target: T, prefix: string): T =>
    new Proxy(target, {
      get(t, key, receiver) {
        const v = Reflect.get(t, key, receiver);
        if (typeof v !== "function") return v;
        return (...args: unknown[]) => {
          calls.push(`${prefix}${String(key)}`);
          return v.apply(t, args);
        };
      },
    });
  const wrapProvider = (p: SandboxProvider) => count(p, "provider.");
  const wrapStore = (s: Store) =>
    new Proxy(s, {
      get(t, key, receiver) {
        const v = Reflect.get(t, key, receiver);
        return v && typeof v === "object" ? count(v, `${String(key)}.`) : v;
      },
    });
  const during = async <T>(fn: () => Promise<T>) => {
    calls.length = 0;
    const value = await fn();
    return { value, calls: [...calls] };
  };
  return { wrapProvider, wrapStore, during };
}

it("ticks a sleeping agent with one store read and no provider call until something changes", async () => {
  const c = counting();
  h = await lifecycleHarness({ wrapProvider: c.wrapProvider, wrapStore: c.wrapStore });
  const x = h;
  expect((await x.manager.wake({ reason: "test", trigger: "operator" })).status).toBe("running");
  expect((await x.manager.sleep("test")).status).toBe("sleeping");

  const first = await c.during(() => x.manager.tick());
  expect(first.value.quiet).toBeUndefined();
  expect(first.calls).toContain("provider.list");

  for (let i = 0; i < 3; i++) {
    const quiet = await c.during(() => x.manager.tick());
    expect(quiet.value).toMatchObject({ ran: true, quiet: true, actions: [], errors: [] });
    expect(quiet.calls).toEqual(["state.glance"]);
  }

  // Another server wakes and puts the agent to sleep: this server's next tick is a full one.
  const other = await x.newManager();
  expect((await other.wake({ reason: "elsewhere", trigger: "operator" })).status).toBe("running");
  expect((await other.sleep("elsewhere")).status).toBe("sleeping");
  const afterChange = await c.during(() => x.manager.tick());
  expect(afterChange.value.quiet).toBeUndefined();
  expect(afterChange.calls).toContain("provider.list");
  expect((await x.manager.tick()).quiet).toBe(true);

  // A message stored while no wake ran for it (its server died after the 202): the tick wakes.
  await x.store.inbox.enqueue({
    id: "left-behind",
    channel: "generic",
    conversation: "c",
    text: "hello",
    receivedAt: Date.now(),
    meta: {},
  });
  const woke = await x.manager.tick();
  expect(woke.quiet).toBeUndefined();
  expect(woke.actions).toContain("wake");
  expect((await x.status()).status).toBe("running");
  expect((await x.store.inbox.count()).pending).toBe(0);
});

import type { WakeHook } from "../domain/wake-hook";

export async function registerAll(hooks: readonly WakeHook[]): Promise<string[]> {
  return runAll(hooks, (h) => h.register());
}

export async function teardownAll(hooks: readonly WakeHook[]): Promise<string[]> {
  return runAll(hooks, (h) => h.teardown());
}

/** Every hook is attempted; failures are returned (as "channel: message") for the event log. */
async function runAll(
  hooks: readonly WakeHook[],
  fn: (h: WakeHook) => Promise<void>,
): Promise<string[]> {
  const results = await Promise.allSettled(hooks.map(fn));
  return results.flatMap((r, i) =>
    r.status === "rejected" ? [`${hooks[i]?.channel}: ${(r.reason as Error).message}`] : [],
  );
}

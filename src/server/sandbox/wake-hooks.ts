/**
 * Seed 000: while asleep, wake hooks route incoming messages to ClawRun's wake handler;
 * while awake they are torn down so messages reach the daemon. Each channel provides one.
 */
export interface WakeHook {
  readonly channel: string;
  register(): Promise<void>;
  teardown(): Promise<void>;
}

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

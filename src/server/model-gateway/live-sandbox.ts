import type { InstanceState, Versioned } from "../domain/instance-state";

/** Statuses in which the sandbox's daemon may be answering a message (and so calling a model). */
const LIVE = new Set(["starting", "running"]);

/**
 * Pure: whether a credential's sandbox may call the model now: only the agent's current
 * sandbox while it starts or runs; a stopped one's credential is dead.
 */
export function isLiveSandbox(state: Versioned<InstanceState> | null, sandboxId: string): boolean {
  return state?.value.sandboxId === sandboxId && LIVE.has(state.value.status);
}

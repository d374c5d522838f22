import type { SidecarHealth } from "../../protocol/health";
import type { SidecarClient } from "./sidecar-client";

/**
 * Asks the sidecar for its health once, through its signed door: its answer, or null when it
 * does not answer in time, refuses, or answers something that is not the protocol.
 */
export async function probeSidecar(
  door: Pick<SidecarClient, "health">,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<SidecarHealth | null> {
  try {
    return await door.health(
      signal
        ? AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)])
        : AbortSignal.timeout(timeoutMs),
    );
  } catch {
    return null;
  }
}

/**
 * Whether the sidecar is alive: a few tries a moment apart, so one dropped connection on a
 * busy machine does not count as a dead agent.
 */
export async function sidecarAnswers(
  door: Pick<SidecarClient, "health">,
  opts: { attempts?: number; intervalMs?: number; timeoutMs?: number } = {},
): Promise<boolean> {
  const attempts = opts.attempts ?? 3;
  for (let i = 0; i < attempts; i++) {
    if (await probeSidecar(door, opts.timeoutMs ?? 2_000)) return true;
    if (i < attempts - 1) await new Promise((r) => setTimeout(r, opts.intervalMs ?? 500));
  }
  return false;
}

/**
 * Issue 22, item 10: the sidecar answers but its daemon does not (the supervisor is restarting
 * it, ~1-2 s). Polls the door's health every `pollMs` until the daemon runs again: true then;
 * false when it failed for good, the sidecar stopped answering, or `budgetMs` passed.
 */
export async function waitForDaemonBack(
  door: Pick<SidecarClient, "health">,
  opts: { pollMs: number; budgetMs: number; now?: () => number },
): Promise<boolean> {
  const now = opts.now ?? Date.now;
  const deadline = now() + opts.budgetMs;
  let misses = 0;
  for (;;) {
    const health = await probeSidecar(door, Math.min(2_000, opts.budgetMs));
    if (health?.ok) return true;
    if (health?.daemon.status === "failed") return false;
    // One dropped answer on a busy machine is not a dead sidecar; three in a row are.
    misses = health ? 0 : misses + 1;
    if (misses >= 3 || now() + opts.pollMs > deadline) return false;
    await new Promise((r) => setTimeout(r, opts.pollMs));
  }
}

import { type LifecycleDeps, recordEvent } from "./deps";
import { findSandbox } from "./find-sandbox";
import { stopQuietly } from "./housekeeping";
import type { HeldLock } from "./lifecycle-lock";
import { orphanIds } from "./orphans";

/**
 * The instance's live sandboxes that the state does not name (orphans.ts). Call with the
 * lifecycle lock held, so no live creator is between the provider's create and the state write.
 */
export async function listOrphans(
  d: Pick<LifecycleDeps, "provider" | "config">,
  currentSandboxId: string | null,
): Promise<string[]> {
  return orphanIds(await d.provider.list(), {
    instance: d.config.instance.name,
    currentSandboxId,
  });
}

/** Stops each orphan (keeping its last log lines) with a `sandbox.orphan-stopped` event. */
export async function stopOrphans(d: LifecycleDeps, ids: readonly string[]): Promise<void> {
  for (const id of ids) {
    const sandbox = await findSandbox(d, id);
    if (sandbox) await stopQuietly(d, sandbox);
    await recordEvent(d, {
      type: "sandbox.orphan-stopped",
      level: "warn",
      sandboxId: id,
      message: `stopped sandbox ${id}: the instance does not own it (left by an operation that died mid-way)`,
    });
  }
}

/**
 * The sweep: list, decide, stop. Run by the tick, and by a wake right after it repaired an
 * operation that died — the moment an orphan is most likely (a server killed right after the
 * provider's create), so the next message stops it without waiting for a tick.
 */
export async function sweepOrphans(
  d: LifecycleDeps,
  lock: HeldLock,
  currentSandboxId: string | null,
): Promise<string[]> {
  const ids = await listOrphans(d, currentSandboxId);
  if (ids.length > 0) {
    await lock.confirm();
    await stopOrphans(d, ids);
  }
  return ids;
}

import type { InstanceState } from "../domain/instance-state";
import type { ManagedSandbox } from "../providers/types";
import { errorMessage, type LifecycleDeps, recordEvent } from "./deps";
import { keepLastLog } from "./log-keeper";

/** Keeps the sandbox's last log lines, then stops it; a sandbox already gone is not an error. */
export async function stopQuietly(
  d: Pick<LifecycleDeps, "store" | "clock" | "logger">,
  sandbox: ManagedSandbox | null,
): Promise<void> {
  if (!sandbox) return;
  await keepLastLog(d.store.kv, sandbox, d.clock());
  try {
    await sandbox.stop();
  } catch (err) {
    d.logger.warn(
      { sandboxId: sandbox.id, err: errorMessage(err) },
      "stopping sandbox failed (it may already be gone)",
    );
  }
}

/** Records how long the sandbox was awake (for the dashboard's awake time and cost). */
export async function recordAwake(
  d: Pick<LifecycleDeps, "store" | "clock">,
  state: InstanceState,
  sandboxId: string,
): Promise<void> {
  const start = state.sandboxCreatedAt;
  if (start === null) return;
  const now = d.clock();
  // A sandbox killed by its TTL was awake until the deadline at most.
  const end = Math.max(start, Math.min(now, state.ttlDeadline ?? now));
  await d.store.awake.record({ sandboxId, start, end });
}

/** ClawRun's count-based retention, unless the provider keeps its own. */
export async function applyRetention(d: LifecycleDeps): Promise<void> {
  if (d.provider.capabilities.ownsRetention) return;
  const doomed = d.retention.select(await d.provider.listSnapshots());
  for (const snap of doomed) {
    try {
      await d.provider.deleteSnapshot(snap.id);
      await recordEvent(d, {
        type: "snapshot.deleted",
        sandboxId: snap.sourceSandboxId,
        message: `retention deleted snapshot ${snap.id} (${d.retention.describe()})`,
        details: { snapshotId: snap.id },
      });
    } catch (err) {
      await recordEvent(d, {
        type: "snapshot.delete-failed",
        level: "warn",
        sandboxId: null,
        message: `retention could not delete ${snap.id}: ${errorMessage(err)}`,
      });
    }
  }
}

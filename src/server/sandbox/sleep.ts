import type { InstanceState } from "../domain/instance-state";
import { CLAIM_MARGIN_MS } from "../inbox/drain";
import type { ManagedSandbox } from "../providers/types";
import { errorMessage, type LifecycleDeps, recordEvent, sleepMs } from "./deps";
import type { HeldLock } from "./lifecycle-lock";
import { keepLastLog } from "./log-keeper";
import { AT_REST, type StateCell } from "./state-cell";
import { registerAll } from "./wake-hooks";

export type SleepOutcome =
  | { status: "sleeping"; snapshotId: string; timings: Record<string, number> }
  | { status: "kept-running"; error: string }
  | { status: "skipped"; reason: string };

/**
 * Seed 000 snapshot and stop, with the lifecycle lock held: snapshot (3 attempts, 2 s
 * apart; if all fail the sandbox keeps running), register wake hooks, stop, retention.
 * Never stops a sandbox whose state was not captured.
 */
export async function snapshotAndStop(
  d: LifecycleDeps,
  cell: StateCell,
  lock: HeldLock,
  reason: string,
  expectSandboxId: string | null,
): Promise<SleepOutcome> {
  let cur = await cell.read();
  const sandboxId = cur.value.sandboxId;
  if (cur.value.status !== "running" || !sandboxId)
    return { status: "skipped", reason: `instance is ${cur.value.status}` };
  if (expectSandboxId && sandboxId !== expectSandboxId)
    return { status: "skipped", reason: "sandbox changed meanwhile" };

  const t0 = Date.now();
  cur = await cell.transition(cur, "snapshotting", {}, { reason });
  // From here new messages queue in the inbox; wait for deliveries already under way so
  // nothing reaches a daemon whose state is being captured (the loss window).
  await waitForInFlightDeliveries(d);
  const sandbox = await d.provider.get(sandboxId);

  let snapshotId: string | null = null;
  const errors: string[] = [];
  for (let attempt = 1; attempt <= d.timings.snapshotAttempts && !snapshotId; attempt++) {
    await lock.confirm();
    try {
      snapshotId = (await sandbox.snapshot()).id;
    } catch (err) {
      errors.push(errorMessage(err));
      await recordEvent(d, {
        type: "snapshot.attempt-failed",
        level: "warn",
        sandboxId,
        message: `snapshot attempt ${attempt} of ${d.timings.snapshotAttempts} failed: ${errorMessage(err)}`,
      });
      if (attempt < d.timings.snapshotAttempts) await sleepMs(d.timings.snapshotRetryDelayMs);
    }
  }
  const snapshotMs = Date.now() - t0;
  if (!snapshotId) {
    const error = `snapshot failed ${errors.length} times (${errors.at(-1)}); the sandbox keeps running so no state is lost`;
    await cell.transition(
      cur,
      "running",
      { error },
      { reason: error, level: "error", details: { errors } },
    );
    return { status: "kept-running", error };
  }

  cur = await cell.transition(
    cur,
    "stopping",
    { snapshotId },
    { reason: `snapshot ${snapshotId} taken; stopping`, details: { snapshotMs } },
  );
  const hookErrors = await registerAll(d.hooks);
  await keepLastLog(d.store.kv, sandbox, d.clock());
  await lock.confirm();
  const stopStarted = Date.now();
  await sandbox.stop();
  const stopMs = Date.now() - stopStarted;
  await recordAwake(d, cur.value, sandboxId);
  await cell.transition(
    cur,
    "sleeping",
    { ...AT_REST, error: null },
    {
      reason: `asleep (${reason})`,
      details: { snapshotId, timings: { snapshotMs, stopMs }, hookErrors, sandboxId },
    },
  );
  await applyRetention(d);
  return { status: "sleeping", snapshotId, timings: { snapshotMs, stopMs } };
}

/**
 * The supervisor gave up on the daemon: stop at once without a snapshot (seed 000), so a
 * crash-looping state never becomes the newest snapshot; earlier snapshots stay for recovery.
 */
export async function stopFailedDaemon(
  d: LifecycleDeps,
  cell: StateCell,
  reason: string,
  expectSandboxId: string,
): Promise<boolean> {
  let cur = await cell.read();
  if (cur.value.status !== "running" || cur.value.sandboxId !== expectSandboxId) return false;
  cur = await cell.transition(cur, "stopping", {}, { reason, level: "error" });
  const hookErrors = await registerAll(d.hooks);
  await stopQuietly(d, await d.provider.get(expectSandboxId).catch(() => null));
  await recordAwake(d, cur.value, expectSandboxId);
  await cell.transition(
    cur,
    "failed",
    { ...AT_REST, error: reason },
    {
      reason: `${reason}; sandbox stopped`,
      level: "error",
      details: { hookErrors, sandboxId: expectSandboxId },
    },
  );
  return true;
}

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

export async function recordAwake(
  d: LifecycleDeps,
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

export async function applyRetention(d: LifecycleDeps): Promise<void> {
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

/** Deliveries claim inbox messages before checking the status; wait for such claims to end. */
async function waitForInFlightDeliveries(d: LifecycleDeps): Promise<void> {
  const deadline = Date.now() + d.agent.deliveryTimeoutMs + CLAIM_MARGIN_MS;
  while (Date.now() < deadline) {
    const now = d.clock();
    const pending = await d.store.inbox.listPending(1000);
    if (!pending.some((m) => m.claimedUntil > now)) return;
    await sleepMs(100);
  }
}

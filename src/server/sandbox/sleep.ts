import type { LifecycleDeps } from "./deps";
import { applyRetention, recordAwake, stopQuietly } from "./housekeeping";
import type { HeldLock } from "./lifecycle-lock";
import { keepLastLog } from "./log-keeper";
import { nextGeneration, savedGeneration } from "./plan/attestation";
import { saveState } from "./save-state";
import { agentConsent, resumeAgent } from "./sleep-consent-io";
import { resumeStaleSuspension } from "./stale-suspension";
import { AT_REST, type StateCell } from "./state-cell";
import { registerAll } from "./wake-hooks";

export type SleepOutcome =
  | {
      status: "sleeping";
      /** The snapshot that holds the files, or null when the stopped sandbox itself does. */
      snapshotId: string | null;
      timings: Record<string, number>;
    }
  | { status: "kept-running"; error: string }
  | { status: "skipped"; reason: string };

/**
 * Snapshot and stop (docs/lifecycle.md, "Sleep"), with the lifecycle lock held: save the
 * files (if that fails every time the sandbox keeps running), register wake hooks, stop,
 * apply retention. Never stops a sandbox whose state was not captured.
 */
export async function snapshotAndStop(
  d: LifecycleDeps,
  cell: StateCell,
  lock: HeldLock,
  reason: string,
  expectSandboxId: string | null,
  /** False for an operator restart: "start fresh" and "wake from this snapshot" promise the
   * snapshots are kept, so the extra one taken here deletes none (the next sleep applies it). */
  retention = true,
): Promise<SleepOutcome> {
  let cur = await cell.read();
  const sandboxId = cur.value.sandboxId;
  if (cur.value.status !== "running" || !sandboxId)
    return { status: "skipped", reason: `instance is ${cur.value.status}` };
  if (expectSandboxId && sandboxId !== expectSandboxId)
    return { status: "skipped", reason: "sandbox changed meanwhile" };
  // An earlier sleep's suspension that never became a snapshot is ended first: the agent
  // would answer this prepare with "another suspension is already prepared".
  cur = await resumeStaleSuspension(d, cell, lock, cur);

  // An agent with a suspend protocol is asked first: "busy" is activity, so it keeps running
  // (with a longer runway) and the next heartbeat asks again.
  const asked = await d.provider.get(sandboxId);
  const consent = await agentConsent(d, asked);
  if (consent?.action === "wait") {
    await asked.extendTimeout(d.timings.extendByMs).catch(() => undefined);
    return { status: "skipped", reason: consent.reason };
  }

  const t0 = d.clock();
  // The agent's word on it stays in the event log (e.g. "the agent agreed to sleep"). Its
  // suspension is recorded with it: a server that dies from here on leaves the id for the
  // next tick, wake or delivery to resume (stale-suspension.ts).
  const suspension =
    consent?.action === "snapshot" && consent.suspensionId
      ? { id: consent.suspensionId, at: d.clock() }
      : null;
  cur = await cell.transition(cur, "snapshotting", suspension ? { suspension } : {}, {
    reason,
    ...(consent ? { details: { consent: consent.reason } } : {}),
  });
  // From here new messages queue in the inbox; deliveries already under way end first so
  // nothing reaches a daemon whose state is being captured (the loss window).
  await d.inbox.settle();
  const sandbox = await d.provider.get(sandboxId);
  const generation = nextGeneration(cur.value);
  const saved = await saveState(d, lock, sandbox, generation);
  const snapshotMs = d.clock() - t0;
  if (!saved.ok) {
    // The agent stopped taking turns for this snapshot: let it work again.
    if (consent?.action === "snapshot" && consent.suspended)
      await resumeAgent(d, sandbox, consent.suspensionId);
    const error = `snapshot failed ${saved.errors.length} times (${saved.errors.at(-1)}); the sandbox keeps running so no state is lost`;
    await cell.transition(
      cur,
      "running",
      { error, suspension: null },
      { reason: error, level: "error", details: { errors: saved.errors } },
    );
    return { status: "kept-running", error };
  }

  const snapshotId = saved.snapshotId ?? cur.value.snapshotId;
  const what = saved.snapshotId
    ? `snapshot ${saved.snapshotId} taken`
    : `sandbox ${sandboxId} saved`;
  cur = await cell.transition(
    cur,
    "stopping",
    {
      snapshotId,
      savedSandboxId: saved.savedSandboxId,
      ...savedGeneration(cur.value, generation, saved.snapshotId),
    },
    { reason: `${what}; stopping`, details: { snapshotMs } },
  );
  const hookErrors = await registerAll(d.hooks);
  const stopStarted = d.clock();
  if (!saved.stopped) {
    await keepLastLog(d.store.kv, sandbox, d.clock());
    await lock.confirm();
    await sandbox.stop();
  }
  const stopMs = d.clock() - stopStarted;
  await recordAwake(d, cur.value, sandboxId);
  await cell.transition(
    cur,
    "sleeping",
    { ...AT_REST, error: null },
    {
      reason: `asleep (${reason})`,
      details: {
        snapshotId: saved.snapshotId,
        timings: { snapshotMs, stopMs },
        hookErrors,
        sandboxId,
      },
    },
  );
  if (retention) await applyRetention(d);
  return { status: "sleeping", snapshotId: saved.snapshotId, timings: { snapshotMs, stopMs } };
}

/**
 * The supervisor gave up on the daemon: stop at once without a snapshot, so a crash-looping
 * state never becomes the newest snapshot; earlier snapshots stay for recovery. (A resumable
 * provider saves the sandbox as it stops; the operator's "start fresh" discards it.)
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
    {
      ...AT_REST,
      error: reason,
      failedStarts: cur.value.failedStarts + 1,
      savedSandboxId: d.provider.capabilities.resumable ? expectSandboxId : null,
    },
    {
      reason: `${reason}; sandbox stopped`,
      level: "error",
      details: { hookErrors, sandboxId: expectSandboxId },
    },
  );
  return true;
}

import type { InstanceState, Versioned } from "../domain/instance-state";
import { newBootId } from "../model-gateway/credential";
import { bringUp } from "./bring-up";
import { errorMessage, type LifecycleDeps, recordEvent } from "./deps";
import { stopQuietly } from "./housekeeping";
import type { HeldLock } from "./lifecycle-lock";
import { obtainSandbox } from "./obtain-sandbox";
import { attest, expectedGeneration } from "./plan/attestation";
import { planWake, type WakePlan, type WakeRequest } from "./plan/wake-plan";
import { AT_REST, type StateCell } from "./state-cell";
import { registerAll, teardownAll } from "./wake-hooks";

export type StartOutcome =
  | { status: "running"; sandboxId: string; timings: Record<string, number> }
  | { status: "failed"; error: string };

/**
 * docs/lifecycle.md, "Start and wake" steps 2–6, with the lifecycle lock already held (step 1). The state must
 * be at rest (uninitialized, sleeping, failed). Every exit leaves a state the tick can repair.
 * A restored sandbox that fails restore attestation is stopped and the next older snapshot
 * tried, as for one that cannot be restored at all.
 */
export async function startSandbox(
  d: LifecycleDeps,
  cell: StateCell,
  lock: HeldLock,
  req: WakeRequest,
  cur: Versioned<InstanceState>,
  lockWaitMs: number,
): Promise<StartOutcome> {
  const t0 = d.clock();
  const timings: Record<string, number> = { lockMs: lockWaitMs };
  cur = await cell.transition(
    cur,
    "creating",
    { sandboxId: null, error: null },
    // The start event names its cause (a message's id, a cron job, the operator's action).
    { reason: req.reason, details: { trigger: req.trigger } },
  );

  const caps = d.provider.capabilities;
  const plan = planWake({
    state: cur.value,
    capabilities: caps,
    snapshots: caps.resumable ? [] : await d.provider.listSnapshots(),
    request: req,
  });
  if (plan.kind === "refuse") {
    // A missing snapshot is lost state: no retry by messages or the tick, only "start fresh".
    const lost = plan.missingSnapshot
      ? { at: d.clock(), sandboxId: null, snapshotId: plan.missingSnapshot }
      : undefined;
    return fail(d, cell, cur, null, plan.reason, lost ? { lost } : {});
  }

  let attempt: Exclude<WakePlan, { kind: "refuse" }> = plan;
  for (;;) {
    const createStarted = d.clock();
    const got = await obtainSandbox(d, lock, attempt);
    if (!got.ok) {
      if (!got.stateGone) return fail(d, cell, cur, null, got.error);
      const lost = got.missingSnapshot
        ? { at: d.clock(), sandboxId: null, snapshotId: got.missingSnapshot }
        : { at: d.clock(), sandboxId: cur.value.savedSandboxId ?? "(unknown)", snapshotId: null };
      return fail(d, cell, cur, null, got.error, { lost, savedSandboxId: null });
    }
    const { sandbox, restoredFrom } = got;
    timings.createMs = d.clock() - createStarted;
    const expected = expectedGeneration(
      cur.value,
      got.resumed
        ? { kind: "resume" }
        : restoredFrom
          ? { kind: "restore", snapshotId: restoredFrom }
          : { kind: "fresh" },
    );
    // A failed start after a resume keeps the stopped sandbox as the agent's saved state.
    const keepSaved = { savedSandboxId: got.resumed ? sandbox.id : null };

    cur = await cell.patch(cur, {
      sandboxId: sandbox.id,
      sandboxCreatedAt: sandbox.createdAt,
      // A new model credential for this boot (a resumed sandbox keeps its id).
      bootId: newBootId(),
      ttlDeadline: sandbox.createdAt + sandbox.timeout,
      snapshotId:
        plan.kind === "fresh" ? null : plan.kind === "resume" ? cur.value.snapshotId : restoredFrom,
      savedSandboxId: null,
      expectedGeneration: expected,
    });
    try {
      const up = await bringUp(d, cell, lock, sandbox, cur, timings);
      cur = up.cur;
      if (!up.health.ok) throw new Error(up.health.reason);

      const verdict = attest(expected, up.health.health.generation);
      if (!verdict.ok) {
        const what = got.resumed
          ? `resumed sandbox ${sandbox.id}`
          : restoredFrom
            ? `snapshot ${restoredFrom}`
            : `new sandbox ${sandbox.id}`;
        await recordEvent(d, {
          type: "restore.generation-mismatch",
          level: "error",
          sandboxId: sandbox.id,
          message: `${what} is not the save ClawRun expected: ${verdict.message}; not used`,
          details: { expected: verdict.expected, found: verdict.found, snapshotId: restoredFrom },
        });
        await stopQuietly(d, sandbox);
        const rest = attempt.kind === "restore" ? olderCandidates(attempt, restoredFrom) : [];
        if (rest.length > 0) {
          attempt = { kind: "restore", candidates: rest };
          cur = await cell.transition(
            cur,
            "creating",
            { sandboxId: null },
            { reason: `${what} failed restore attestation; trying an older snapshot` },
          );
          continue;
        }
        const error = `${what} failed restore attestation (${verdict.message}); it was stopped and the agent's state is kept — restore an earlier snapshot or "start fresh"`;
        return fail(d, cell, await cell.read(), sandbox.id, error, keepSaved);
      }

      const hookErrors = await teardownAll(d.hooks);
      timings.totalMs = d.clock() - t0 + lockWaitMs;
      cur = await cell.transition(
        cur,
        "running",
        { hooksRegistered: false, error: null, lost: null, failedStarts: 0 },
        {
          reason: got.resumed
            ? `running, resumed ${sandbox.id}`
            : restoredFrom
              ? `running, restored from ${restoredFrom}`
              : "running, fresh",
          details: { timings, hookErrors, restoredFrom, resumed: got.resumed, expected },
        },
      );
      return { status: "running", sandboxId: sandbox.id, timings };
    } catch (err) {
      await stopQuietly(d, sandbox);
      const error = `start failed: ${errorMessage(err)}`;
      return fail(d, cell, await cell.read(), sandbox.id, error, keepSaved);
    }
  }
}

/** The candidates after the one just tried (the plan lists them newest first). */
function olderCandidates(
  attempt: { kind: "restore"; candidates: string[] },
  tried: string | null,
): string[] {
  const at = tried === null ? -1 : attempt.candidates.indexOf(tried);
  return at < 0 ? [] : attempt.candidates.slice(at + 1);
}

async function fail(
  d: LifecycleDeps,
  cell: StateCell,
  cur: Versioned<InstanceState>,
  sandboxId: string | null,
  error: string,
  patch: Partial<InstanceState> = {},
): Promise<StartOutcome> {
  await registerAll(d.hooks); // messages keep arriving: they queue and may wake it later
  await cell.transition(
    cur,
    "failed",
    {
      ...AT_REST,
      error,
      failedStarts: cur.value.failedStarts + 1,
      expectedGeneration: null,
      ...patch,
    },
    { reason: error, level: "error", details: { sandboxId } },
  );
  return { status: "failed", error };
}

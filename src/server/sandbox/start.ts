import { heartbeatSecret } from "../auth/derive-key";
import type { InstanceState, Versioned } from "../domain/instance-state";
import { errorMessage, type LifecycleDeps, startupBudgetMs } from "./deps";
import { waitForHealth } from "./health-wait";
import { stopQuietly } from "./housekeeping";
import type { HeldLock } from "./lifecycle-lock";
import { obtainSandbox } from "./obtain-sandbox";
import { launchSidecar, provisionFiles } from "./provisioning";
import { sidecarClient } from "./sidecar-client";
import { AT_REST, type StateCell } from "./state-cell";
import { registerAll, teardownAll } from "./wake-hooks";
import { planWake, type WakeRequest } from "./wake-plan";

export type StartOutcome =
  | { status: "running"; sandboxId: string; timings: Record<string, number> }
  | { status: "failed"; error: string };

/**
 * docs/lifecycle.md, "Start and wake" steps 2–6, with the lifecycle lock already held (step 1). The state must
 * be at rest (uninitialized, sleeping, failed). Every exit leaves a state the tick can repair.
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
    { reason: req.reason },
  );

  const caps = d.provider.capabilities;
  const plan = planWake({
    state: cur.value,
    capabilities: caps,
    snapshots: caps.resumable ? [] : await d.provider.listSnapshots(),
    request: req,
  });
  if (plan.kind === "refuse") return fail(d, cell, cur, null, plan.reason);

  const createStarted = d.clock();
  const got = await obtainSandbox(d, lock, plan);
  if (!got.ok) {
    if (!got.stateGone) return fail(d, cell, cur, null, got.error);
    const lost = { at: d.clock(), sandboxId: cur.value.savedSandboxId ?? "(unknown)" };
    return fail(d, cell, cur, null, got.error, { lost, savedSandboxId: null });
  }
  const { sandbox, restoredFrom } = got;
  timings.createMs = d.clock() - createStarted;

  cur = await cell.patch(cur, {
    sandboxId: sandbox.id,
    sandboxCreatedAt: sandbox.createdAt,
    ttlDeadline: sandbox.createdAt + sandbox.timeout,
    snapshotId:
      plan.kind === "fresh" ? null : plan.kind === "resume" ? cur.value.snapshotId : restoredFrom,
    savedSandboxId: null,
  });
  try {
    let mark = d.clock();
    await lock.confirm();
    const files = await provisionFiles({
      sandbox,
      agent: d.agent,
      parentUrl: d.publicUrl,
      tools: d.config.sandbox.tools,
      heartbeatIntervalMs: d.timings.heartbeatIntervalMs,
      sidecarTimings: d.sidecarTimings,
    });
    await sandbox.writeFiles(files);
    timings.provisionMs = d.clock() - mark;

    mark = d.clock();
    await lock.confirm();
    await launchSidecar(sandbox, heartbeatSecret(d.masterSecret, sandbox.id), d.protectionBypass);
    timings.sidecarStartMs = d.clock() - mark;
    cur = await cell.transition(
      cur,
      "starting",
      {},
      { reason: "sidecar launched; waiting for the daemon" },
    );

    // Health, then the agent's own readiness, both through the sidecar's signed door.
    const door = sidecarClient(sandbox, d.masterSecret);
    const agentReady = d.agent.ready?.bind(d.agent);
    const health = await waitForHealth(door, {
      budgetMs: startupBudgetMs(d),
      pollMs: d.timings.healthPollMs,
      ready: agentReady && ((signal) => agentReady(door, signal)),
    });
    timings.healthyMs = health.waitedMs;
    if (health.phases.sidecarMs !== null) timings.sidecarUpMs = health.phases.sidecarMs;
    if (health.phases.daemonMs !== null) timings.daemonListeningMs = health.phases.daemonMs;
    if (!health.ok) throw new Error(health.reason);

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
        details: { timings, hookErrors, restoredFrom, resumed: got.resumed },
      },
    );
    return { status: "running", sandboxId: sandbox.id, timings };
  } catch (err) {
    await stopQuietly(d, sandbox);
    return fail(d, cell, await cell.read(), sandbox.id, `start failed: ${errorMessage(err)}`);
  }
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
    { ...AT_REST, error, failedStarts: cur.value.failedStarts + 1, ...patch },
    { reason: error, level: "error", details: { sandboxId } },
  );
  return { status: "failed", error };
}

import { SANDBOX_PORTS } from "../../protocol/constants";
import { heartbeatSecret } from "../auth/derive-key";
import type { InstanceState, Versioned } from "../domain/instance-state";
import type { ManagedSandbox } from "../providers/types";
import {
  errorMessage,
  type LifecycleDeps,
  policySettings,
  recordEvent,
  startupBudgetMs,
} from "./deps";
import { waitForHealth } from "./health-wait";
import type { HeldLock } from "./lifecycle-lock";
import { nativeTtlMs, planRestore } from "./policy";
import { launchSidecar, provisionFiles } from "./provisioning";
import { stopQuietly } from "./sleep";
import { AT_REST, type StateCell } from "./state-cell";
import { registerAll, teardownAll } from "./wake-hooks";

export interface StartRequest {
  reason: string;
  /** Ignore snapshots on purpose (operator "start fresh"). */
  fresh?: boolean;
  /** Restore this snapshot instead of the newest (operator "wake from this"). */
  snapshotId?: string;
}

export type StartOutcome =
  | { status: "running"; sandboxId: string; timings: Record<string, number> }
  | { status: "failed"; error: string };

/**
 * Seed 000 start, steps 2–6, with the lifecycle lock already held (step 1). The state must
 * be at rest (uninitialized, sleeping, failed). Every exit leaves a state the tick can repair.
 */
export async function startSandbox(
  d: LifecycleDeps,
  cell: StateCell,
  lock: HeldLock,
  req: StartRequest,
  cur: Versioned<InstanceState>,
  lockWaitMs: number,
): Promise<StartOutcome> {
  const t0 = Date.now();
  const timings: Record<string, number> = { lockMs: lockWaitMs };
  cur = await cell.transition(
    cur,
    "creating",
    { sandboxId: null, error: null },
    { reason: req.reason },
  );

  const snapshots = await d.provider.listSnapshots();
  const plan = planRestore({
    snapshots,
    expectedSnapshotId: cur.value.snapshotId,
    fresh: req.fresh ?? false,
    requested: req.snapshotId ?? null,
    lost: cur.value.lost,
  });
  if (plan.kind === "refuse") return fail(d, cell, cur, null, plan.reason);

  const candidates = plan.kind === "restore" ? plan.candidates : [null];
  const createStarted = Date.now();
  let sandbox: ManagedSandbox | null = null;
  let restoredFrom: string | null = null;
  const restoreErrors: string[] = [];
  for (const snapshotId of candidates) {
    await lock.confirm();
    try {
      sandbox = await d.provider.create({
        snapshotId: snapshotId ?? undefined,
        timeoutMs: nativeTtlMs(policySettings(d)),
        ports: [SANDBOX_PORTS.daemon, SANDBOX_PORTS.sidecar],
        resources: d.config.sandbox.resources,
        networkPolicy: d.config.sandbox.networkPolicy,
        labels: { instance: d.config.instance.name },
      });
      restoredFrom = snapshotId;
      break;
    } catch (err) {
      const what = snapshotId ? `restore of snapshot ${snapshotId}` : "create";
      restoreErrors.push(`${what}: ${errorMessage(err)}`);
      await recordEvent(d, {
        type: "sandbox.create-failed",
        level: "error",
        sandboxId: null,
        message: `${what} failed: ${errorMessage(err)}`,
        details: { snapshotId },
      });
    }
  }
  if (!sandbox) {
    const error =
      plan.kind === "restore"
        ? `none of ${candidates.length} snapshot(s) could be restored (${restoreErrors.join("; ")}); the agent's state is kept — fix the provider or "start fresh" to discard it`
        : `sandbox could not be created: ${restoreErrors.join("; ")}`;
    return fail(d, cell, cur, null, error);
  }
  timings.createMs = Date.now() - createStarted;

  cur = await cell.patch(cur, {
    sandboxId: sandbox.id,
    sandboxCreatedAt: sandbox.createdAt,
    ttlDeadline: sandbox.createdAt + sandbox.timeout,
    snapshotId: plan.kind === "fresh" ? null : restoredFrom,
  });
  try {
    let mark = Date.now();
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
    timings.provisionMs = Date.now() - mark;

    mark = Date.now();
    await lock.confirm();
    await launchSidecar(sandbox, heartbeatSecret(d.masterSecret, sandbox.id));
    timings.sidecarStartMs = Date.now() - mark;
    cur = await cell.transition(
      cur,
      "starting",
      {},
      { reason: "sidecar launched; waiting for the daemon" },
    );

    const agentUrl = sandbox.domain(d.agent.daemon().port);
    const agentReady = d.agent.ready?.bind(d.agent);
    const health = await waitForHealth(`${sandbox.domain(SANDBOX_PORTS.sidecar)}/health`, {
      budgetMs: startupBudgetMs(d),
      pollMs: d.timings.healthPollMs,
      ready: agentReady && ((signal) => agentReady(agentUrl, signal)),
    });
    timings.healthyMs = health.waitedMs;
    if (health.phases.sidecarMs !== null) timings.sidecarUpMs = health.phases.sidecarMs;
    if (health.phases.daemonMs !== null) timings.daemonListeningMs = health.phases.daemonMs;
    if (!health.ok) throw new Error(health.reason);

    const hookErrors = await teardownAll(d.hooks);
    timings.totalMs = Date.now() - t0 + lockWaitMs;
    cur = await cell.transition(
      cur,
      "running",
      { hooksRegistered: false, error: null, lost: null },
      {
        reason: restoredFrom ? `running, restored from ${restoredFrom}` : "running, fresh",
        details: { timings, hookErrors, restoredFrom },
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
): Promise<StartOutcome> {
  await registerAll(d.hooks); // messages keep arriving: they queue and may wake it later
  await cell.transition(
    cur,
    "failed",
    { ...AT_REST, error },
    { reason: error, level: "error", details: { sandboxId } },
  );
  return { status: "failed", error };
}

import { SANDBOX_PORTS } from "../../protocol/constants";
import { sidecarHealthSchema } from "../../protocol/health";
import { enqueueDueJobs, refreshSchedule } from "../cron/cron-runner";
import { type ManagedSandbox, SandboxNotFoundError, type SandboxStatus } from "../providers/types";
import { errorMessage, policySettings, recordEvent } from "./deps";
import { withLifecycleLock } from "./lifecycle-lock";
import type { ManagerDeps, SandboxLifecycleManager } from "./manager";
import { recordAwake, stopQuietly } from "./sleep";
import { AT_REST, type StateCell } from "./state-cell";
import { TRANSITIONAL } from "./status-machine";
import { planTick, type TickAction } from "./tick-policy";
import { registerAll } from "./wake-hooks";

export interface TickReport {
  /** False when another lifecycle operation held the lock (the next tick tries again). */
  ran: boolean;
  actions: TickAction["kind"][];
  errors: string[];
}

/**
 * The periodic tick: compare the store's status with the provider's truth and repair,
 * stop orphans, keep the cron schedule, deliver or wake for queued messages and due jobs.
 */
export async function reconcile(
  d: ManagerDeps,
  cell: StateCell,
  manager: SandboxLifecycleManager,
): Promise<TickReport> {
  const errors: string[] = [];
  const r = await withLifecycleLock(d.store, { leaseMs: d.timings.lockLeaseMs }, async () => {
    let cur = await cell.read();
    const now = d.clock();
    const sandbox = cur.value.sandboxId ? await findSandbox(d, cur.value.sandboxId) : null;
    const running = sandbox?.status === "running" && cur.value.status === "running";
    const reported =
      running && sandbox && d.agent.cronJobs ? await agentJobs(d, sandbox, errors) : null;
    const sched = await refreshSchedule(d.store, cell, cur, d.config.cron, now, reported);
    cur = sched.cur;
    const orphans = (await d.provider.list())
      .filter((s) => s.labels.instance === d.config.instance.name && s.id !== cur.value.sandboxId)
      .filter(
        (s) => s.status === "running" || s.status === "pending" || s.status === "snapshotting",
      )
      .map((s) => s.id);
    const actions = planTick(
      {
        state: cur.value,
        sandboxStatus: sandbox?.status ?? null,
        orphans,
        inboxPending: (await d.store.countInbox()).pending,
        cronDueAt: sched.dueAt,
        now,
      },
      policySettings(d),
    );
    for (const action of actions) {
      try {
        if (action.kind === "repair") await repairStuck(d, cell);
        else if (action.kind === "mark-dead") await markDead(d, cell, action.sandboxStatus);
        else if (action.kind === "stop-orphans") await stopOrphans(d, action.ids);
        else if (action.kind === "run-cron")
          await enqueueDueJobs(d.store, sched.view, sched.schedule, now);
      } catch (err) {
        errors.push(`${action.kind}: ${errorMessage(err)}`);
      }
    }
    return actions;
  });
  if (!r.acquired) return { ran: false, actions: [], errors };

  // Delivery and wakes run after the lock is released: they take it themselves when needed.
  for (const action of r.value) {
    try {
      if (action.kind === "drain" || action.kind === "run-cron") await manager.drain();
      else if (action.kind === "wake") {
        await manager.wakeAndDeliver({
          reason: action.reason === "cron" ? "a cron job is due" : "queued messages",
          trigger: action.reason === "cron" ? "cron" : "message",
        });
      }
    } catch (err) {
      errors.push(`${action.kind}: ${errorMessage(err)}`);
    }
  }
  for (const e of errors) d.logger.warn({ tick: true }, e);
  return { ran: true, actions: r.value.map((a) => a.kind), errors };
}

/**
 * With the lock held, a transitional status means its operation died mid-way (crashed
 * function, server restart). Keep a healthy sandbox; otherwise stop it and come to rest.
 */
export async function repairStuck(d: ManagerDeps, cell: StateCell): Promise<void> {
  let cur = await cell.read();
  const from = cur.value.status;
  if (!TRANSITIONAL.has(from)) return;
  const sandbox = cur.value.sandboxId ? await findSandbox(d, cur.value.sandboxId) : null;
  if (sandbox?.status === "running" && from !== "stopping" && (await isHealthy(sandbox))) {
    if (from === "creating")
      cur = await cell.transition(
        cur,
        "starting",
        {},
        { reason: "repair: sandbox found provisioned" },
      );
    await cell.transition(
      cur,
      "running",
      { error: null },
      { reason: `repaired: ${from} was interrupted; the sandbox is healthy`, level: "warn" },
    );
    return;
  }
  if (sandbox) await stopQuietly(d, sandbox.id);
  const hasSnapshot =
    cur.value.snapshotId !== null || (await d.provider.listSnapshots()).length > 0;
  const rest =
    from === "snapshotting" || from === "stopping" || hasSnapshot ? "sleeping" : "uninitialized";
  const hookErrors = await registerAll(d.hooks);
  if (cur.value.sandboxId) await recordAwake(d, cur.value, cur.value.sandboxId);
  await cell.transition(cur, rest, AT_REST, {
    reason: `repaired: ${from} was interrupted (the server stopped mid-operation)`,
    level: "warn",
    details: { hookErrors, sandboxId: cur.value.sandboxId },
  });
}

async function markDead(
  d: ManagerDeps,
  cell: StateCell,
  truth: SandboxStatus | null,
): Promise<void> {
  const cur = await cell.read();
  const id = cur.value.sandboxId;
  if (cur.value.status !== "running" || !id) return;
  const hookErrors = await registerAll(d.hooks);
  await recordAwake(d, cur.value, id);
  const from = cur.value.snapshotId
    ? `snapshot ${cur.value.snapshotId}`
    : "no snapshot (changes since it started are lost)";
  await cell.transition(cur, "sleeping", AT_REST, {
    reason: `sandbox ${id} ${truth ? `is ${truth}` : "is gone"} without ClawRun stopping it (native TTL expired or host restarted); asleep from ${from}`,
    level: "warn",
    details: { sandboxId: id, providerStatus: truth, hookErrors },
  });
}

async function stopOrphans(d: ManagerDeps, ids: string[]): Promise<void> {
  for (const id of ids) {
    await stopQuietly(d, id);
    await recordEvent(d, {
      type: "sandbox.orphan-stopped",
      level: "warn",
      sandboxId: id,
      message: `stopped sandbox ${id}: the instance does not own it any more`,
    });
  }
}

async function findSandbox(d: ManagerDeps, id: string): Promise<ManagedSandbox | null> {
  try {
    return await d.provider.get(id);
  } catch (err) {
    if (err instanceof SandboxNotFoundError) return null;
    throw err;
  }
}

async function isHealthy(sandbox: ManagedSandbox): Promise<boolean> {
  try {
    const res = await fetch(`${sandbox.domain(SANDBOX_PORTS.sidecar)}/health`, {
      signal: AbortSignal.timeout(2_000),
    });
    return sidecarHealthSchema.parse(await res.json()).ok;
  } catch {
    return false;
  }
}

async function agentJobs(d: ManagerDeps, sandbox: ManagedSandbox, errors: string[]) {
  try {
    return (
      (await d.agent.cronJobs?.(
        sandbox.domain(d.agent.daemon().port),
        AbortSignal.timeout(5_000),
      )) ?? null
    );
  } catch (err) {
    errors.push(`agent cron jobs: ${errorMessage(err)}`);
    return null;
  }
}

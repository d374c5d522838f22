import type { InstanceState, Versioned } from "../domain/instance-state";
import { sidecarClient } from "../door/sidecar-client";
import { sidecarAnswers } from "../door/sidecar-probe";
import type { ManagedSandbox, SandboxStatus } from "../providers/types";
import { enqueueDueJobs, refreshSchedule } from "./cron-runner";
import { errorMessage, type LifecycleDeps, policySettings } from "./deps";
import { findSandbox } from "./find-sandbox";
import { stopQuietly } from "./housekeeping";
import type { HeldLock } from "./lifecycle-lock";
import { listOrphans, stopOrphans } from "./orphan-sweep";
import { type CleanTick, FULL_TICK_EVERY_MS, quietTick } from "./plan/quiet-tick";
import { HAS_SANDBOX, TRANSITIONAL } from "./plan/status-machine";
import { nextTickAt, planTick, sandboxAlive, type TickAction } from "./plan/tick-policy";
import { restAfterDeath } from "./rest-after-death";
import { ensureScheduledWake } from "./scheduled-wake";
import { snapshotAndStop } from "./sleep";
import { resumeStaleSuspension } from "./stale-suspension";
import type { StateCell } from "./state-cell";

export { findSandbox };

export interface TickReport {
  /** False when another lifecycle operation held the lock (the caller tries again soon). */
  ran: boolean;
  /** When a tick next has a known job (a retry, a cron job); null: none scheduled. */
  nextAt: number | null;
  actions: TickAction["kind"][];
  errors: string[];
  /** True when the one-read quiet tick saw nothing changed (plan/quiet-tick.ts). */
  quiet?: boolean;
}

/** What one server remembers between its ticks of one agent. */
export interface TickMemory {
  lastClean: CleanTick | null;
}

/** What the reconcile pass asks of the manager once the lock is released. */
export interface ReconcileOps {
  withLock<T>(
    fn: (lock: HeldLock) => Promise<T>,
  ): Promise<{ acquired: true; value: T } | { acquired: false }>;
  wakeAndDeliver(req: { reason: string; trigger: "message" | "cron" }): Promise<unknown>;
  /** Replies queued for the platforms go out whether or not the agent is awake. */
  sendReplies(): Promise<unknown>;
}

/**
 * The periodic tick: compare the store's status with the provider's truth and repair, stop
 * orphans, keep the cron schedule, deliver or wake for queued messages and due jobs. When a
 * pass changes the state (a repair, a dead sandbox, an agent saved and stopped) it plans once
 * more on the new state, so a restarted server repairs and wakes in the same tick.
 */
export async function reconcile(
  d: LifecycleDeps,
  cell: StateCell,
  ops: ReconcileOps,
  memory: TickMemory = { lastClean: null },
): Promise<TickReport> {
  if (memory.lastClean) {
    const g = await d.store.state.glance();
    const quiet = quietTick(
      {
        state: g.state?.value ?? null,
        version: g.state?.version ?? 0,
        inboxPending: g.inboxPending,
        outboxPending: g.outboxPending,
        lastClean: memory.lastClean,
        now: d.clock(),
      },
      {
        cronWakeLeadTimeMs: policySettings(d).cronWakeLeadTimeMs,
        fullTickEveryMs: FULL_TICK_EVERY_MS,
      },
    );
    if (quiet) return { ran: true, quiet: true, nextAt: quiet.nextAt, actions: [], errors: [] };
  }
  memory.lastClean = null;
  const report: TickReport = { ran: true, nextAt: null, actions: [], errors: [] };
  let restingVersion: number | null = null;
  for (let pass = 0; pass < 2; pass++) {
    const r = await ops.withLock((lock) => lockedPass(d, cell, lock, report.errors));
    if (!r.acquired) return { ...report, ran: pass > 0 };
    report.actions.push(...r.value.actions.map((a) => a.kind));
    report.nextAt = r.value.nextAt;
    restingVersion = r.value.restingVersion;
    const changed = r.value.actions.some(
      (a) => a.kind === "repair" || a.kind === "mark-dead" || a.kind === "sleep",
    );
    // Delivery and wakes run after the lock is released: they take it themselves when needed.
    for (const action of r.value.actions) {
      try {
        // The agent is running: this delivers (and recovers an agent found gone meanwhile).
        if (action.kind === "drain" || action.kind === "run-cron")
          await ops.wakeAndDeliver({ reason: "queued messages", trigger: "message" });
        else if (action.kind === "wake") {
          await ops.wakeAndDeliver({
            reason: action.reason === "cron" ? "a cron job is due" : "queued messages",
            trigger: action.reason === "cron" ? "cron" : "message",
          });
        }
      } catch (err) {
        report.errors.push(`${action.kind}: ${errorMessage(err)}`);
      }
    }
    if (!changed) break;
  }
  try {
    await ops.sendReplies();
  } catch (err) {
    report.errors.push(`replies: ${errorMessage(err)}`);
  }
  // Without a scheduler there is nothing to keep in step: no state read (a command on Upstash).
  if (d.wakeScheduler) {
    try {
      await ensureScheduledWake(d, (await cell.read()).value);
    } catch (err) {
      report.errors.push(`scheduled wake: ${errorMessage(err)}`);
    }
  }
  for (const e of report.errors) d.logger.warn({ tick: true }, e);
  // Nothing to do and nothing failed: the next ticks need only see that nothing changed.
  if (restingVersion !== null && report.actions.length === 0 && report.errors.length === 0)
    memory.lastClean = { version: restingVersion, at: d.clock() };
  return report;
}

/** One planning pass under the lock: gather facts, plan, and carry out the state changes. */
async function lockedPass(
  d: LifecycleDeps,
  cell: StateCell,
  lock: HeldLock,
  errors: string[],
): Promise<{ actions: TickAction[]; nextAt: number | null; restingVersion: number | null }> {
  let cur = await cell.read();
  // A suspension left by a server that died before its snapshot: the agent takes work again.
  cur = await resumeStaleSuspension(d, cell, lock, cur).catch(async (err: unknown) => {
    errors.push(`stale suspension: ${errorMessage(err)}`);
    return cell.read();
  });
  const now = d.clock();
  const sandbox = cur.value.sandboxId ? await findSandbox(d, cur.value.sandboxId) : null;
  const running = cur.value.status === "running" && sandbox?.status === "running";
  const answers =
    running && sandbox ? await sidecarAnswers(sidecarClient(sandbox, d.masterSecret)) : null;
  const reported =
    answers && sandbox && d.agent.cronJobs ? await agentJobs(d, sandbox, errors) : null;
  const sched = await refreshSchedule(d.store, cell, cur, d.config.cron, now, reported);
  cur = sched.cur;
  const orphans = await listOrphans(d, cur.value.sandboxId);
  const facts = {
    state: cur.value,
    sandboxStatus: sandbox?.status ?? null,
    sidecarAnswers: answers,
    orphans,
    inboxPending: (await d.store.inbox.count()).pending,
    cronDueAt: sched.dueAt,
    now,
  };
  const actions = planTick(facts, policySettings(d));
  for (const action of actions) {
    try {
      if (action.kind === "repair") await repairStuck(d, cell, lock);
      else if (action.kind === "mark-dead") await markDead(d, cell, action.sandboxStatus);
      else if (action.kind === "sleep") await snapshotAndStop(d, cell, lock, action.reason, null);
      else if (action.kind === "stop-orphans") await stopOrphans(d, action.ids);
      else if (action.kind === "run-cron")
        await enqueueDueJobs(d.store, sched.view, sched.schedule, now);
    } catch (err) {
      errors.push(`${action.kind}: ${errorMessage(err)}`);
    }
  }
  // At rest (no sandbox meant to exist), the version a quiet tick compares with.
  const resting = !HAS_SANDBOX.has(cur.value.status) && !cur.value.suspension;
  return {
    actions,
    nextAt: nextTickAt(facts, policySettings(d)),
    restingVersion: resting ? cur.version : null,
  };
}

/**
 * With the lock held, a transitional status means its operation died mid-way (crashed
 * function, server restart). Finish what can be finished; never turn unsaved work into a
 * silent fresh start:
 * - creating/starting with a healthy sandbox → running; otherwise stop it and rest;
 * - snapshotting with the sandbox still there → back to running and snapshot + stop again
 *   (the interrupted sleep, completed before the native TTL can delete the files);
 * - stopping → the snapshot was taken: stop and sleep;
 * - the sandbox gone → rest as planRestAfterDeath says (loud when work was lost).
 */
export async function repairStuck(
  d: LifecycleDeps,
  cell: StateCell,
  lock: HeldLock,
): Promise<void> {
  let cur = await cell.read();
  const from = cur.value.status;
  if (!TRANSITIONAL.has(from)) return;
  const sandbox = cur.value.sandboxId ? await findSandbox(d, cur.value.sandboxId) : null;
  const alive = sandbox !== null && sandboxAlive(sandbox.status);

  if (
    alive &&
    (from === "creating" || from === "starting") &&
    (await sidecarAnswers(sidecarClient(sandbox, d.masterSecret)))
  ) {
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
      { error: null, lost: null },
      { reason: `repaired: ${from} was interrupted; the sandbox is healthy`, level: "warn" },
    );
    return;
  }
  if (alive && from === "snapshotting") {
    await cell.transition(
      cur,
      "running",
      {},
      {
        reason: "repair: the snapshot was interrupted; the sandbox still holds the agent's files",
        level: "warn",
      },
    );
    await snapshotAndStop(d, cell, lock, "repair: completing an interrupted sleep", sandbox.id);
    return;
  }
  if (sandbox && alive) await stopQuietly(d, sandbox);
  await restAfterDeath(
    d,
    cell,
    cur,
    alive
      ? `was stopped while ${from} was interrupted`
      : `was gone while ${from} was interrupted (the server stopped mid-operation)`,
  );
}

async function markDead(d: LifecycleDeps, cell: StateCell, truth: SandboxStatus | null) {
  const cur: Versioned<InstanceState> = await cell.read();
  if (cur.value.status !== "running" || !cur.value.sandboxId) return;
  await restAfterDeath(
    d,
    cell,
    cur,
    `${truth ? `is ${truth}` : "is gone"} without ClawRun stopping it (native TTL expired or host restarted)`,
  );
}

async function agentJobs(d: LifecycleDeps, sandbox: ManagedSandbox, errors: string[]) {
  try {
    return (
      (await d.agent.cronJobs?.(
        sidecarClient(sandbox, d.masterSecret),
        AbortSignal.timeout(5_000),
      )) ?? null
    );
  } catch (err) {
    errors.push(`agent cron jobs: ${errorMessage(err)}`);
    return null;
  }
}

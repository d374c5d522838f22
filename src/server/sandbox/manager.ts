import type { HeartbeatBody } from "../../protocol/heartbeat";
import type { InstanceState, Versioned } from "../domain/instance-state";
import { sidecarClient } from "../door/sidecar-client";
import { sidecarAnswers, waitForDaemonBack } from "../door/sidecar-probe";
import type { DrainOptions, DrainResult } from "../inbox/drain";
import { Coalescer } from "./coalesce";
import {
  errorMessage,
  type LifecycleDeps,
  lockMaxHoldMs,
  policySettings,
  recordEvent,
  sleepMs,
  startupBudgetMs,
} from "./deps";
import { type HeartbeatOutcome, handleHeartbeat } from "./heartbeat";
import { applyRetention } from "./housekeeping";
import { type HeldLock, LifecycleBusyError, withLifecycleLock } from "./lifecycle-lock";
import { sweepOrphans } from "./orphan-sweep";
import { nextGeneration, savedGeneration } from "./plan/attestation";
import { isStateArchiveId } from "./plan/state-archive-plan";
import { TRANSITIONAL } from "./plan/status-machine";
import { sandboxAlive } from "./plan/tick-policy";
import { admitWake, alreadyRunning, type WakeRequest } from "./plan/wake-plan";
import { findSandbox, reconcile, repairStuck, type TickMemory, type TickReport } from "./reconcile";
import { restAfterDeath } from "./rest-after-death";
import { writeGenerationMarker } from "./save-state";
import { replanOnChange } from "./scheduled-wake";
import { type SleepOutcome, snapshotAndStop, stopFailedDaemon } from "./sleep";
import { resumeStaleSuspension } from "./stale-suspension";
import { type StartOutcome, startSandbox } from "./start";
import { StateCell } from "./state-cell";
import { wakeCause } from "./wake-cause";

/** After a wake, keep delivering through retry back-offs for this long; the tick covers the rest. */
const RETRY_WINDOW_MS = 60_000;

export type { WakeRequest };

export type WakeAndDeliverOutcome = { wake: WakeOutcome; drain: DrainResult | null };

export type WakeOutcome =
  | StartOutcome
  | { status: "already-running"; sandboxId: string }
  | { status: "not-now"; reason: string };

/**
 * SandboxLifecycleManager: start, extend, snapshot + stop, wake and reconcile (docs/lifecycle.md),
 * orchestrated through the ports. Decisions come from ./policy; this class carries them out
 * under the lifecycle lock with compare-and-set state writes.
 */
export class SandboxLifecycleManager {
  readonly cell: StateCell;

  constructor(private readonly d: LifecycleDeps) {
    this.cell = new StateCell(d.store, d.clock, d.logger, replanOnChange(d));
  }

  getState(): Promise<Versioned<InstanceState>> {
    return this.cell.read();
  }

  /**
   * Start or wake. Concurrent callers create exactly one sandbox: whoever gets the lock
   * starts; the others wait for that outcome instead of failing or creating another.
   */
  async wake(req: WakeRequest): Promise<WakeOutcome> {
    const clock = this.d.clock;
    const began = clock();
    const waitLimit = this.d.timings.lockLeaseMs + startupBudgetMs(this.d) + 30_000;
    const cur = await this.cell.read();
    const admitted = admitWake(cur.value, req, clock(), policySettings(this.d));
    if (admitted.kind === "already-running") {
      // A delivery to an agent still suspended by a sleep that never happened would be refused.
      if (cur.value.suspension)
        await this.withLock((lock) =>
          this.cell.read().then((now) => resumeStaleSuspension(this.d, this.cell, lock, now)),
        );
      return { status: "already-running", sandboxId: admitted.sandboxId };
    }
    if (admitted.kind === "not-now") return { status: "not-now", reason: admitted.reason };
    while (clock() - began < waitLimit) {
      const attempt = await this.withLock(async (lock) => {
        let now = await this.cell.read();
        if (TRANSITIONAL.has(now.value.status)) {
          // We hold the lock, so whoever set this status died mid-way: repair first, and stop
          // what it may have left running (a server killed right after the provider's create).
          await repairStuck(this.d, this.cell, lock);
          now = await this.cell.read();
          await sweepOrphans(this.d, lock, now.value.sandboxId);
        }
        if (alreadyRunning(now.value, req)) {
          await resumeStaleSuspension(this.d, this.cell, lock, now);
          return { status: "already-running", sandboxId: now.value.sandboxId as string } as const;
        }
        if (now.value.status === "running") {
          // Operator asked for a fresh start or another snapshot: put the current one to sleep first.
          const slept = await snapshotAndStop(
            this.d,
            this.cell,
            lock,
            "operator restart",
            null,
            false,
          );
          if (slept.status !== "sleeping")
            return {
              status: "failed",
              error: `could not stop the running sandbox first: ${"error" in slept ? slept.error : slept.reason}`,
            } as const;
          now = await this.cell.read();
        }
        // Decided now, under the lock: the caller's reason to wake may be gone (wake-cause.ts).
        const why = wakeCause(req, {
          firstPending:
            req.trigger === "operator"
              ? null
              : ((await this.d.store.inbox.listPending(1))[0] ?? null),
          cronDueAt: now.value.cronDueAt,
          now: clock(),
          cronWakeLeadTimeMs: policySettings(this.d).cronWakeLeadTimeMs,
        });
        if (!why.wake) return { status: "not-now", reason: why.reason } as const;
        const at = now;
        const named = { ...req, reason: why.cause };
        return this.reported("start", () =>
          startSandbox(this.d, this.cell, lock, named, at, clock() - began),
        );
      });
      if (attempt.acquired) return attempt.value;
      await sleepMs(500);
      const seen = (await this.cell.read()).value;
      if (alreadyRunning(seen, req))
        return { status: "already-running", sandboxId: seen.sandboxId as string };
      if (seen.status === "failed" && seen.since >= began && req.trigger !== "operator")
        return { status: "failed", error: seen.error ?? seen.reason };
    }
    return { status: "not-now", reason: "another lifecycle operation is still running" };
  }

  /** Snapshot + stop (operator "stop", or idle). Returns `busy` when another operation holds the lock. */
  async sleep(
    reason: string,
    expectSandboxId: string | null = null,
    /** false: a stopping server — messages queued meanwhile wait for its next start. */
    deliverAfter = true,
  ): Promise<SleepOutcome | { status: "busy" }> {
    const r = await this.withLock((lock) =>
      this.reported("snapshot + stop", () =>
        snapshotAndStop(this.d, this.cell, lock, reason, expectSandboxId),
      ),
    );
    if (!r.acquired) return { status: "busy" };
    if (!deliverAfter) return r.value;
    // Kept running after failed snapshots, or messages queued meanwhile: deliver them now.
    if (r.value.status === "kept-running") await this.drain();
    else if (r.value.status === "sleeping" && (await this.d.store.inbox.count()).pending > 0) {
      await this.wakeAndDeliver({
        reason: "messages arrived while going to sleep",
        trigger: "message",
      });
    }
    return r.value;
  }

  /** Operator "snapshot now": capture without stopping (the sandbox keeps running). */
  async snapshotNow(): Promise<{ id: string } | { status: "busy" } | { status: "not-running" }> {
    const r = await this.withLock(() =>
      this.reported("snapshot", async () => {
        const cur = await this.cell.read();
        if (cur.value.status !== "running" || !cur.value.sandboxId)
          return { status: "not-running" } as const;
        const sandbox = await this.d.provider.get(cur.value.sandboxId);
        const generation = nextGeneration(cur.value);
        await writeGenerationMarker(sandbox, generation, this.d.clock());
        const snap = await sandbox.snapshot();
        await this.cell.patch(cur, {
          snapshotId: snap.id,
          ...savedGeneration(cur.value, generation, snap.id),
        });
        await recordEvent(this.d, {
          type: "snapshot.taken",
          sandboxId: cur.value.sandboxId,
          message: `operator snapshot ${snap.id}`,
          details: { snapshotId: snap.id },
        });
        await applyRetention(this.d);
        return snap;
      }),
    );
    return r.acquired ? r.value : { status: "busy" };
  }

  async deleteSnapshot(id: string): Promise<void> {
    // A state archive's index is rewritten on delete: under the lock, like the saves that add to it.
    if (isStateArchiveId(id)) {
      const r = await this.withLock(() => this.d.provider.deleteSnapshot(id));
      if (!r.acquired) throw new LifecycleBusyError();
    } else await this.d.provider.deleteSnapshot(id);
    await recordEvent(this.d, {
      type: "snapshot.deleted",
      sandboxId: null,
      message: `operator deleted snapshot ${id}`,
      details: { snapshotId: id },
    });
  }

  /** Heartbeat from a sidecar: see ./heartbeat.ts. */
  handleHeartbeat(hb: HeartbeatBody, sentAt: number): Promise<HeartbeatOutcome> {
    return handleHeartbeat(this.d, this.cell, this, hb, sentAt);
  }

  /** The supervisor gave up on the daemon: stop at once (under the lock), no snapshot. */
  async stopFailed(reason: string, sandboxId: string): Promise<void> {
    await this.withLock(() =>
      this.reported("stop", () => stopFailedDaemon(this.d, this.cell, reason, sandboxId)),
    );
  }

  /** Periodic reconcile (Vercel Cron / local timer). */
  tick(): Promise<TickReport> {
    return reconcile(this.d, this.cell, this, this.tickMemory);
  }

  /** Runs `fn` under the instance's lifecycle lock, or reports at once that it is held. */
  withLock<T>(
    fn: (lock: HeldLock) => Promise<T>,
  ): Promise<{ acquired: true; value: T } | { acquired: false }> {
    return withLifecycleLock(
      this.d.store.locks,
      { leaseMs: this.d.timings.lockLeaseMs, maxHoldMs: lockMaxHoldMs(this.d) },
      fn,
    );
  }

  drain(opts: DrainOptions = {}): Promise<DrainResult> {
    return this.d.inbox.drain(opts);
  }

  /** Deliveries the store refused to record (a drain's `unsettled`): see inbox/settle.ts. */
  finishDelivered(unsettled: DrainResult["unsettled"]): Promise<void> {
    return this.d.inbox.finishDelivered(unsettled);
  }

  sendReplies(): Promise<unknown> {
    return this.d.inbox.sendReplies();
  }

  /**
   * A provider or store fault in the middle of an operation: the operator sees it as an event
   * with the provider's own message; the status stays where it was, and the next tick repairs it.
   */
  private async reported<T>(operation: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      const state = await this.cell.read().catch(() => null);
      await recordEvent(this.d, {
        type: "lifecycle.failed",
        level: "error",
        sandboxId: state?.value.sandboxId ?? null,
        message: `${operation} failed while ${state?.value.status ?? "in an unknown state"}: ${errorMessage(err)}; the next tick repairs the status`,
        details: { operation },
      }).catch(() => undefined);
      throw err;
    }
  }

  /**
   * Wake, then deliver what queued while asleep. When nothing answers at the agent's address,
   * that is a lifecycle fact: check the sandbox, save and stop it if its agent is gone, wake
   * it again and redeliver — the message never counts that against itself.
   */
  wakeAndDeliver(req: WakeRequest): Promise<WakeAndDeliverOutcome> {
    // Messages ask for the same thing: callers in this process share one run (coalesce.ts).
    if (req.trigger === "message" && !req.fresh && !req.snapshotId)
      return this.messageRuns.run(() => this.wakeAndDeliverNow(req));
    return this.wakeAndDeliverNow(req);
  }

  private readonly messageRuns = new Coalescer<WakeAndDeliverOutcome>();
  /** This server's last tick that found the agent at rest with nothing to do (quiet ticks). */
  private readonly tickMemory: TickMemory = { lastClean: null };

  private async wakeAndDeliverNow(req: WakeRequest): Promise<WakeAndDeliverOutcome> {
    let wake = await this.wake(req);
    let drain: DrainResult | null = null;
    // Rounds: a daemon restarting inside a live sandbox is waited for (bounded) and the drain
    // retried within seconds; a gone agent is put to rest and woken once more.
    for (let round = 0, wakes = 0; round < 4; round++) {
      if (wake.status !== "running" && wake.status !== "already-running") break;
      drain = await this.drain({ waitForRetriesMs: RETRY_WINDOW_MS });
      if (!drain.unreachable) break;
      const recovery = await this.recoverUnreachable();
      if (recovery === "daemon-restarting") {
        if (await this.daemonBack()) continue;
        break; // still down: the sidecar's heartbeat (daemonReturned) or the tick resumes it
      }
      if (recovery !== "rested" || ++wakes > 1) break;
      wake = await this.wake({
        reason: `${req.reason} (the agent was gone)`,
        trigger: req.trigger,
      });
    }
    return { wake, drain };
  }

  /**
   * The agent did not answer: if its sandbox is gone, come to rest as after any death; if the
   * sandbox is there but its sidecar is not, save its files and stop it. Returns whether the
   * instance was put to rest (so a wake can bring the agent back).
   */
  private async recoverUnreachable(): Promise<"rested" | "daemon-restarting" | "none"> {
    const r = await this.withLock(
      async (lock): Promise<"rested" | "daemon-restarting" | "none"> => {
        const cur = await this.cell.read();
        if (cur.value.status !== "running" || !cur.value.sandboxId) return "none";
        const sandbox = await findSandbox(this.d, cur.value.sandboxId);
        if (!sandbox || !sandboxAlive(sandbox.status)) {
          await restAfterDeath(this.d, this.cell, cur, "was gone when a message was delivered");
          return "rested";
        }
        // The sidecar answers: the daemon is restarting (the supervisor's business); the caller
        // waits for it outside the lock.
        if (await sidecarAnswers(sidecarClient(sandbox, this.d.masterSecret)))
          return "daemon-restarting";
        const slept = await snapshotAndStop(
          this.d,
          this.cell,
          lock,
          "the agent stopped answering and its sidecar is gone",
          sandbox.id,
        );
        return slept.status === "sleeping" ? "rested" : "none";
      },
    );
    return r.acquired ? r.value : "none";
  }

  /** Waits (bounded, no lock held) for the current sandbox's restarted daemon to run again. */
  private async daemonBack(): Promise<boolean> {
    const cur = await this.cell.read();
    if (cur.value.status !== "running" || !cur.value.sandboxId) return false;
    const sandbox = await findSandbox(this.d, cur.value.sandboxId);
    if (!sandbox) return false;
    return waitForDaemonBack(sidecarClient(sandbox, this.d.masterSecret), {
      pollMs: this.d.timings.daemonReturnPollMs,
      budgetMs: this.d.timings.daemonReturnBudgetMs,
      now: this.d.clock,
    });
  }

  /**
   * A heartbeat said the daemon is back after a restart (`daemonReturned`): deliver what
   * found it unreachable now rather than at the next tick. Never wakes anything.
   */
  async resumeDelivery(): Promise<void> {
    await this.drain({});
  }
}

import type { Logger } from "pino";
import { ClawrunError } from "../../protocol/clawrun-error";
import type { InstanceState, InstanceStatus, Versioned } from "../domain/instance-state";
import type { Store } from "../store/types";
import { assertTransition } from "./plan/status-machine";

export const INITIAL_STATE: InstanceState = {
  status: "uninitialized",
  since: 0,
  reason: "never started",
  sandboxId: null,
  sandboxCreatedAt: null,
  bootId: null,
  ttlDeadline: null,
  snapshotId: null,
  savedSandboxId: null,
  error: null,
  hooksRegistered: false,
  lastExtend: null,
  cronDueAt: null,
  lost: null,
  generation: 0,
  snapshotGenerations: {},
  expectedGeneration: null,
  failedStarts: 0,
  suspension: null,
};

/**
 * The patch for every status without a sandbox (sleeping, failed, repaired): the sandbox
 * fields cleared and wake hooks registered, so messages can wake the agent again.
 */
export const AT_REST = {
  sandboxId: null,
  sandboxCreatedAt: null,
  bootId: null,
  ttlDeadline: null,
  hooksRegistered: true,
  lastExtend: null,
  suspension: null,
} as const satisfies Partial<InstanceState>;

export class StateConflictError extends ClawrunError {
  static override readonly errorName = "StateConflictError";
  constructor(what: string) {
    super("state_conflict", `instance state changed underneath (${what}); a newer writer wins`, {
      status: 409,
    });
  }
}

export interface TransitionNote {
  reason: string;
  level?: "info" | "warn" | "error";
  /** Extra event details (timings, provider messages). */
  details?: Record<string, unknown>;
}

/**
 * The instance state with its version: every status change is a legal transition, a
 * compare-and-set write, and an event in the log.
 */
export class StateCell {
  constructor(
    private readonly store: Pick<Store, "state" | "events">,
    private readonly clock: () => number,
    private readonly logger: Logger,
    /** Runs after every successful write (scheduled wakes are re-planned on state changes). */
    private readonly onWrite?: (prev: InstanceState, next: InstanceState) => Promise<void>,
  ) {}

  async read(): Promise<Versioned<InstanceState>> {
    return (await this.store.state.get()) ?? { value: INITIAL_STATE, version: 0 };
  }

  async transition(
    cur: Versioned<InstanceState>,
    to: InstanceStatus,
    patch: Partial<InstanceState>,
    note: TransitionNote,
  ): Promise<Versioned<InstanceState>> {
    assertTransition(cur.value.status, to);
    const now = this.clock();
    const build = (base: InstanceState): InstanceState => ({
      ...base,
      ...patch,
      status: to,
      since: now,
      reason: note.reason,
    });
    const what = `${cur.value.status} → ${to}`;
    let written: Versioned<InstanceState>;
    try {
      written = await this.write(cur, build(cur.value), what);
    } catch (err) {
      // A heartbeat may have extended the TTL meanwhile (a same-status patch). The lock holder
      // transitions from the state as it is now, provided nobody changed status or sandbox.
      const fresh = await this.read();
      const onlyPatched =
        fresh.value.status === cur.value.status && fresh.value.sandboxId === cur.value.sandboxId;
      if (!(err instanceof StateConflictError) || !onlyPatched) throw err;
      written = await this.write(fresh, build(fresh.value), what);
    }
    const next = written.value;
    const level = note.level ?? "info";
    const sandboxId = next.sandboxId ?? cur.value.sandboxId;
    await this.store.events.append({
      at: now,
      type: `status.${to}`,
      level,
      sandboxId,
      message: note.reason,
      details: { from: cur.value.status, ...(note.details ?? {}) },
    });
    this.logger[level]({ from: cur.value.status, to, sandboxId, ...note.details }, note.reason);
    return written;
  }

  /** Same-status update (TTL deadline, cron due time). */
  async patch(
    cur: Versioned<InstanceState>,
    patch: Partial<InstanceState>,
  ): Promise<Versioned<InstanceState>> {
    return this.write(cur, { ...cur.value, ...patch }, "update");
  }

  private async write(cur: Versioned<InstanceState>, next: InstanceState, what: string) {
    const result = await this.store.state.compareAndSet(cur.version, next);
    if (!result.ok) throw new StateConflictError(what);
    await this.onWrite?.(cur.value, next);
    return { value: next, version: result.version };
  }
}

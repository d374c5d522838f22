import { ClawrunError } from "../../../protocol/clawrun-error";
import type { InstanceStatus } from "../../domain/instance-state";

/**
 * Legal status transitions. Anything else is a bug or a stale writer and is rejected
 * before it is written (the CAS write is the second line of defence).
 */
const TRANSITIONS: Record<InstanceStatus, readonly InstanceStatus[]> = {
  uninitialized: ["creating"],
  // A failed create/restore ends in `failed`; a repaired stuck create goes back to rest.
  creating: ["starting", "failed", "sleeping", "uninitialized"],
  // starting → creating: a restored sandbox failed restore attestation; an older snapshot is tried.
  starting: ["running", "failed", "sleeping", "uninitialized", "creating"],
  // running → sleeping/failed/uninitialized: the sandbox died under us (native TTL, host
  // restart); reconcile notices and comes to rest (docs/lifecycle.md, "When state is lost").
  running: ["snapshotting", "stopping", "sleeping", "failed", "uninitialized"],
  // snapshot failed 3 times → keep running; or succeeded → stopping; or the sandbox died.
  snapshotting: ["stopping", "running", "sleeping", "failed", "uninitialized"],
  // stopping → failed: the daemon had failed and the sandbox was stopped without a snapshot.
  stopping: ["sleeping", "failed"],
  sleeping: ["creating"],
  failed: ["creating"],
};

export const TRANSITIONAL: ReadonlySet<InstanceStatus> = new Set([
  "creating",
  "starting",
  "snapshotting",
  "stopping",
]);

/** Statuses in which a sandbox is meant to exist. */
export const HAS_SANDBOX: ReadonlySet<InstanceStatus> = new Set([
  "creating",
  "starting",
  "running",
  "snapshotting",
  "stopping",
]);

export function canTransition(from: InstanceStatus, to: InstanceStatus): boolean {
  return TRANSITIONS[from].includes(to);
}

export class IllegalTransitionError extends ClawrunError {
  static override readonly errorName = "IllegalTransitionError";
  constructor(
    readonly from: InstanceStatus,
    readonly to: InstanceStatus,
  ) {
    super("illegal_transition", `illegal status transition ${from} → ${to}`, { status: 409 });
  }
}

export function assertTransition(from: InstanceStatus, to: InstanceStatus): void {
  if (!canTransition(from, to)) throw new IllegalTransitionError(from, to);
}

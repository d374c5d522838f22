import type { SnapshotInfo } from "../../providers/types";

export interface RetentionPolicy {
  /** Which snapshots to delete. Pure: no I/O. */
  select(snapshots: readonly SnapshotInfo[]): SnapshotInfo[];
  describe(): string;
}

/** Keeps the newest `keep` snapshots (docs/lifecycle.md, "Sleep") and selects the rest for deletion. */
export class CountBasedRetention implements RetentionPolicy {
  constructor(readonly keep: number) {
    if (!Number.isInteger(keep) || keep < 1)
      throw new Error(`CountBasedRetention: keep must be a positive integer, got ${keep}`);
  }

  select(snapshots: readonly SnapshotInfo[]): SnapshotInfo[] {
    // Newest first; ties broken by id so the choice is deterministic.
    const ordered = [...snapshots].sort(
      (a, b) => b.createdAt - a.createdAt || b.id.localeCompare(a.id),
    );
    return ordered.slice(this.keep);
  }

  describe(): string {
    return `keep the newest ${this.keep} snapshot${this.keep === 1 ? "" : "s"}`;
  }
}

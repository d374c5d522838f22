import type { SnapshotInfo } from "./types";

/**
 * Pure: what an operator restart keeps and deletes. The restart itself deletes nothing (the
 * server skips retention for it, docs/lifecycle.md); the agent's next sleep applies the
 * count-based retention, which then leaves the newest `keep`.
 */
export function keptAfterRestart(
  snapshots: readonly SnapshotInfo[],
  running: boolean,
  keep: number,
): { now: number; laterDeleted: string[] } {
  const newestFirst = [...snapshots].sort((a, b) => b.createdAt - a.createdAt);
  // At the next sleep: this restart's snapshot (if running) and the next sleep's own are newer.
  const newer = (running ? 1 : 0) + 1;
  return {
    now: snapshots.length,
    laterDeleted: newestFirst.slice(Math.max(0, keep - newer)).map((s) => s.id),
  };
}

/** The dialog's exact promise about snapshots for "start fresh" and "wake from this". */
export function KeptNote({
  snapshots,
  running,
  keep,
}: {
  snapshots: readonly SnapshotInfo[] | null;
  running: boolean;
  keep: number;
}) {
  if (!snapshots) return null;
  const k = keptAfterRestart(snapshots, running, keep);
  return (
    <p data-testid="kept-note">
      Nothing is deleted now: {k.now === 1 ? "the 1 snapshot stays" : `all ${k.now} snapshots stay`}
      {running ? ", and a snapshot of the running sandbox is added first" : ""}. Retention keeps the
      newest {keep} when the agent next goes to sleep
      {k.laterDeleted.length
        ? `; that would delete ${k.laterDeleted.map((id) => id).join(", ")}.`
        : "; none of today's would be deleted then."}
    </p>
  );
}

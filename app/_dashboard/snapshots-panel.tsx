import type { ConfirmRequest } from "./confirm-dialog";
import { formatAge, formatBytes, formatClock, formatTimestamp } from "./format";
import { KeptNote } from "./kept-note";
import { Loading, Panel } from "./panel";
import type { Overview, SnapshotInfo } from "./types";
import type { Actions } from "./use-actions";

/** Snapshots, newest first, with delete and (where the provider can) wake from a chosen one. */
export function SnapshotsPanel({
  overview,
  snapshots,
  actions,
  confirm,
  now,
}: {
  overview: Overview | null;
  snapshots: SnapshotInfo[] | null;
  actions: Actions;
  confirm(request: ConfirmRequest): Promise<boolean>;
  now: number;
}) {
  const locked = !overview || overview.transitioning || actions.busy !== null;
  const running = overview?.instance.status === "running";

  const remove = async (s: SnapshotInfo) => {
    const isCurrent = s.id === overview?.instance.snapshotId;
    const ok = await confirm({
      title: "Delete this snapshot?",
      body: (
        <>
          <p>
            Snapshot <code>{s.id}</code> ({formatBytes(s.sizeBytes)}, {formatAge(s.createdAt, now)})
            is deleted for good.
          </p>
          {isCurrent ? (
            <p className="warn">
              It holds the agent&apos;s latest files: the next wake restores an older snapshot, or
              refuses if none is left.
            </p>
          ) : null}
        </>
      ),
      confirmLabel: "Delete snapshot",
    });
    if (ok)
      await actions.run("Delete snapshot", `/api/sandbox/snapshots/${encodeURIComponent(s.id)}`, {
        method: "DELETE",
      });
  };

  const wakeFrom = async (s: SnapshotInfo) => {
    if (running) {
      const ok = await confirm({
        title: "Restart from this snapshot?",
        body: (
          <>
            <p>
              The running sandbox is snapshotted and stopped, then the agent wakes from{" "}
              <code>{s.id}</code>.
            </p>
            <KeptNote snapshots={snapshots} running keep={overview?.settings.snapshotsKept ?? 1} />
          </>
        ),
        confirmLabel: "Restart from snapshot",
      });
      if (!ok) return;
    }
    await actions.run("Wake from snapshot", "/api/sandbox/start", { body: { snapshotId: s.id } });
  };

  return (
    <Panel id="snapshots" title="Snapshots" wide aside={overview?.retention}>
      {snapshots ? (
        <div className="scroll">
          <table className="stack-narrow" data-testid="snapshots-table">
            <caption className="visually-hidden">Snapshots, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Snapshot</th>
                <th scope="col">Created</th>
                <th scope="col" className="right">
                  Size
                </th>
                <th scope="col">Source sandbox</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {snapshots.length === 0 ? (
                <tr>
                  <td colSpan={5} className="muted">
                    No snapshots yet. One is taken every time the agent goes to sleep.
                  </td>
                </tr>
              ) : (
                snapshots.map((s) => (
                  <tr key={s.id} data-testid="snapshot-row" data-snapshot-id={s.id}>
                    <th scope="row" className="mono">
                      {s.id}
                    </th>
                    <td className="num" data-label="Created" title={formatTimestamp(s.createdAt)}>
                      {formatClock(s.createdAt, now)}{" "}
                      <span className="muted">({formatAge(s.createdAt, now)})</span>
                    </td>
                    <td className="num right" data-label="Size">
                      {formatBytes(s.sizeBytes)}
                    </td>
                    <td className="mono" data-label="Source">
                      {s.sourceSandboxId}
                    </td>
                    <td className="right nowrap row-actions">
                      {overview?.canWakeFromSnapshot ? (
                        <button
                          type="button"
                          className="secondary small-button"
                          disabled={locked}
                          onClick={() => wakeFrom(s)}
                          aria-label={`Wake from snapshot ${s.id}`}
                        >
                          Wake from this
                        </button>
                      ) : null}{" "}
                      <button
                        type="button"
                        className="danger small-button"
                        disabled={locked}
                        onClick={() => remove(s)}
                        aria-label={`Delete snapshot ${s.id}`}
                        data-testid="snapshot-delete"
                      >
                        Delete
                      </button>
                    </td>
                  </tr>
                ))
              )}
            </tbody>
          </table>
        </div>
      ) : (
        <Loading />
      )}
    </Panel>
  );
}

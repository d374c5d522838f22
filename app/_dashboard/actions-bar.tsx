"use client";

import type { ConfirmRequest } from "./confirm-dialog";
import { mainAction } from "./headline";
import { KeptNote } from "./kept-note";
import type { Overview, SnapshotInfo } from "./types";
import type { Actions } from "./use-actions";

/** Start/Wake, Stop, Snapshot now, Start fresh; destructive ones ask first. */
export function ActionsBar({
  overview,
  snapshots,
  actions,
  confirm,
}: {
  overview: Overview | null;
  snapshots: SnapshotInfo[] | null;
  actions: Actions;
  confirm(request: ConfirmRequest): Promise<boolean>;
}) {
  const status = overview?.instance.status;
  const locked = !overview || overview.transitioning || actions.busy !== null;
  const running = status === "running";
  const resting = status === "uninitialized" || status === "sleeping" || status === "failed";

  const stop = async () => {
    const ok = await confirm({
      title: "Stop the agent?",
      body: (
        <p>
          ClawRun takes a snapshot of the sandbox, then stops it. A message or a cron job wakes it
          again from that snapshot.
        </p>
      ),
      confirmLabel: "Snapshot and stop",
    });
    if (ok) await actions.run("Stop", "/api/sandbox/stop");
  };

  // The main button offers what the top line offers (Start fresh when the state is gone).
  const main = overview ? mainAction(overview, Date.now()) : { label: "Wake", body: {} };

  const fresh = async () => {
    const ok = await confirm({
      title: "Start fresh?",
      body: (
        <>
          <p>
            The agent starts in an empty sandbox: its files from earlier snapshots are not restored.
            {running ? " The running sandbox is snapshotted and stopped first." : ""}
          </p>
          <KeptNote
            snapshots={snapshots}
            running={running}
            keep={overview?.settings.snapshotsKept ?? 1}
          />
        </>
      ),
      confirmLabel: "Start fresh",
    });
    if (ok) await actions.run("Start fresh", "/api/sandbox/start", { body: { fresh: true } });
  };

  return (
    <div className="actions">
      <div className="row wrap">
        <button
          type="button"
          disabled={locked || !resting}
          onClick={() =>
            main.body.fresh ? fresh() : actions.run(main.label, "/api/sandbox/start", { body: {} })
          }
          data-testid="action-start"
        >
          {main.label}
        </button>
        <button
          type="button"
          className="danger"
          disabled={locked || !running}
          onClick={stop}
          data-testid="action-stop"
        >
          Stop
        </button>
        <button
          type="button"
          className="secondary"
          disabled={locked || !running}
          onClick={() => actions.run("Snapshot now", "/api/sandbox/snapshot")}
          data-testid="action-snapshot"
        >
          Snapshot now
        </button>
        <button
          type="button"
          className="secondary"
          disabled={locked || !(resting || running)}
          onClick={fresh}
          data-testid="action-fresh"
        >
          Start fresh
        </button>
      </div>
      <p className="muted small action-state" aria-live="polite" data-testid="action-notice">
        {actions.busy
          ? `${actions.busy}: waiting for the server…`
          : overview?.transitioning
            ? "A transition is in progress; actions are available when it settles."
            : (actions.notice ?? "")}
      </p>
      <p className="error" role="alert" data-testid="action-error">
        {actions.error ?? ""}
      </p>
    </div>
  );
}

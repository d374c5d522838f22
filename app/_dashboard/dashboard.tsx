"use client";

import { ActionsBar } from "./actions-bar";
import { AwakePanel } from "./awake-panel";
import { ConfigPanel } from "./config-panel";
import { useConfirm } from "./confirm-dialog";
import { CronPanel } from "./cron-panel";
import { DaemonPanel } from "./daemon-panel";
import { EventsPanel } from "./events-panel";
import { InboxPanel } from "./inbox-panel";
import { LogsPanel } from "./logs-panel";
import { RunwayPanel } from "./runway-panel";
import { SignOutButton } from "./sign-out-button";
import { SnapshotsPanel } from "./snapshots-panel";
import { StatusPanel } from "./status-panel";
import { useActions } from "./use-actions";
import { useDashboardData } from "./use-dashboard-data";
import { useNow } from "./use-now";

/** The operator dashboard: one screen, polled, every panel a small component of its own. */
export function Dashboard() {
  const feed = useDashboardData();
  const now = useNow(feed.skewMs);
  const { overview, events, snapshots, inbox, logs, config } = feed.data;
  const actions = useActions(overview, feed.refreshNow);
  const { confirm, dialog } = useConfirm();

  return (
    <>
      <header className="topbar">
        <div className="brand">
          <h1>ClawRun</h1>
          <span className="muted small">operator dashboard</span>
        </div>
        <SignOutButton />
      </header>
      <main className="dash">
        <p className="error banner reserve" role="status" data-testid="load-error">
          {feed.error ? `Could not refresh: ${feed.error}` : ""}
        </p>
        <div className="grid">
          <StatusPanel overview={overview} now={now}>
            <ActionsBar overview={overview} actions={actions} confirm={confirm} />
          </StatusPanel>
          <RunwayPanel overview={overview} now={now} />
          <DaemonPanel overview={overview} events={events} now={now} />
          <AwakePanel overview={overview} />
          <CronPanel overview={overview} now={now} />
          <InboxPanel inbox={inbox} actions={actions} now={now} />
          <SnapshotsPanel
            overview={overview}
            snapshots={snapshots}
            actions={actions}
            confirm={confirm}
            now={now}
          />
          <EventsPanel events={events} now={now} />
          <LogsPanel logs={logs} />
          <ConfigPanel rows={config} />
        </div>
      </main>
      {dialog}
    </>
  );
}

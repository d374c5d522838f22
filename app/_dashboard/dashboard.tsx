"use client";

import { ActionsBar } from "./actions-bar";
import { AgentProvider } from "./agent-context";
import { AwakePanel } from "./awake-panel";
import { ChannelCards } from "./channel-cards";
import { ConfigPanel } from "./config-panel";
import { useConfirm } from "./confirm-dialog";
import { CostCard } from "./cost-card";
import { CronPanel } from "./cron-panel";
import { DaemonPanel } from "./daemon-panel";
import { EventsPanel } from "./events-panel";
import { GettingStarted } from "./getting-started";
import { InboxPanel } from "./inbox-panel";
import { LiveBanner } from "./live-banner";
import { LogsPanel } from "./logs-panel";
import { RunwayPanel } from "./runway-panel";
import { SignOutButton } from "./sign-out-button";
import { SnapshotsPanel } from "./snapshots-panel";
import { StatusPanel } from "./status-panel";
import { TopLine } from "./top-line";
import { useActions } from "./use-actions";
import { useLiveData } from "./use-live-data";
import { useNow } from "./use-now";

/** Which agent a dashboard shows, when the deployment has several (app/agents/[agent]/page.tsx). */
export interface DashboardAgent {
  name: string;
  /** The default agent keeps the plain routes; the others are reached under their name. */
  isDefault: boolean;
}

/**
 * The operator dashboard: the answer on top, then the panels, each a small component of its
 * own. Data is pushed by the server (use-live-data); while it is unreachable the page says
 * so, greys out and its clocks stop. Without `agent` it is the one agent of the deployment;
 * with it, that agent's page in the fleet, with its name and a way back.
 */
export function Dashboard({ agent }: { agent?: DashboardAgent }) {
  return (
    <AgentProvider agent={agent && !agent.isDefault ? agent.name : null}>
      <AgentDashboard agent={agent} />
    </AgentProvider>
  );
}

function AgentDashboard({ agent }: { agent?: DashboardAgent }) {
  const feed = useLiveData();
  const stale = feed.live.staleSince !== null;
  const now = useNow(feed.skewMs, stale ? (feed.live.staleSince ?? undefined) : undefined);
  const { overview, events, snapshots, inbox, logs, config, cost } = feed.data;
  const errors = feed.panelErrors;
  const actions = useActions(overview, feed.refreshNow, feed.live.reconnects);
  const { confirm, dialog } = useConfirm();

  return (
    <>
      <header className="topbar">
        <div className="brand">
          <h1>ClawRun</h1>
          {agent ? (
            <>
              <span className="agent-name" data-testid="agent-name">
                {agent.name}
                {agent.isDefault ? <span className="muted small"> (default)</span> : null}
              </span>
              <a href="/" className="small" data-testid="back-to-fleet">
                ← All agents
              </a>
            </>
          ) : (
            <span className="muted small">operator dashboard</span>
          )}
        </div>
        <div className="row">
          {stale ? null : <LiveBanner live={feed.live} now={Date.now()} />}
          <SignOutButton />
        </div>
      </header>
      <main className={stale ? "dash stale" : "dash"} aria-busy={overview === null}>
        {stale ? <LiveBanner live={feed.live} now={Date.now()} /> : null}
        <div className="grid">
          <TopLine
            overview={overview}
            now={now}
            actions={actions}
            trail={feed.trail}
            confirm={confirm}
          />
          <GettingStarted overview={overview} />
          <StatusPanel overview={overview} now={now}>
            <ActionsBar
              overview={overview}
              snapshots={snapshots}
              actions={actions}
              confirm={confirm}
            />
          </StatusPanel>
          <CostCard cost={cost} error={errors.cost} actions={actions} confirm={confirm} />
          <DaemonPanel overview={overview} events={events} now={now} />
          <RunwayPanel overview={overview} now={now} />
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
          <ChannelCards now={now} />
          <EventsPanel events={events} error={errors.events} />
          <LogsPanel logs={logs} error={errors.logs} />
          <ConfigPanel rows={config} />
        </div>
      </main>
      {dialog}
    </>
  );
}

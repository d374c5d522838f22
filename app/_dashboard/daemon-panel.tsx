import { formatAge, formatDuration, restartHistory } from "./format";
import { Loading, Panel } from "./panel";
import { RestartChart } from "./restart-chart";
import type { LifecycleEvent, Overview } from "./types";

const DAY = 24 * 60 * 60_000;

/** The agent's daemon as the sidecar supervises it, with its restart history. */
export function DaemonPanel({
  overview,
  events,
  now,
}: {
  overview: Overview | null;
  events: LifecycleEvent[] | null;
  now: number;
}) {
  const i = overview?.instance;
  const live = overview?.sidecar ?? null;
  // The sidecar answers live while running; otherwise the last heartbeat is the best we know.
  const hb =
    overview?.heartbeat && overview.heartbeat.sandboxId === i?.sandboxId
      ? overview.heartbeat
      : null;
  const status = live?.daemon.status ?? hb?.daemonStatus ?? null;
  const restarts = live?.daemon.restarts ?? hb?.daemonRestarts ?? null;
  return (
    <Panel id="daemon" title="Daemon">
      {overview && i ? (
        <>
          <dl className="facts">
            <dt>Status</dt>
            <dd data-testid="daemon-status">
              {status ? <span className={`pill daemon-${status}`}>{status}</span> : "no daemon"}
              {status && !live ? <span className="muted small"> (last heartbeat)</span> : null}
            </dd>
            <dt>PID</dt>
            <dd className="num mono" data-testid="daemon-pid">
              {live?.daemon.pid ?? "—"}
            </dd>
            <dt>Restarts in this sandbox</dt>
            <dd className="num" data-testid="daemon-restarts">
              {restarts ?? "—"}
            </dd>
            <dt>Sidecar up</dt>
            <dd className="num">{live ? formatDuration(live.uptime * 1000) : "—"}</dd>
            <dt>Sidecar tick</dt>
            <dd className="num">
              {live?.heartbeat.lastTick
                ? `${formatAge(live.heartbeat.lastTick, now)}${live.heartbeat.lastSuccess === false ? " (failed)" : ""}`
                : "—"}
            </dd>
          </dl>
          <p className="warn small reserve">
            {i.status === "running" && !live
              ? "The sidecar is not answering its health check."
              : ""}
          </p>
          <RestartChart
            points={restartHistory(events ?? []).filter((p) => p.at >= now - DAY)}
            now={now}
          />
        </>
      ) : (
        <Loading />
      )}
    </Panel>
  );
}

import { formatDuration, formatPercent } from "./format";
import { Loading, Panel } from "./panel";
import type { Overview } from "./types";

type Summary = Overview["awake"]["day"];

/** Time awake beside time asleep: the saving ClawRun exists for. */
export function AwakePanel({ overview }: { overview: Overview | null }) {
  return (
    <Panel id="awake" title="Awake vs asleep">
      {overview ? (
        <>
          <AwakeRow label="Last 24 hours" summary={overview.awake.day} testId="awake-day" />
          <AwakeRow label="Last 30 days" summary={overview.awake.month} testId="awake-month" />
          <p className="muted small">
            A sleeping agent is a snapshot on disk: no sandbox runs or is billed.
          </p>
        </>
      ) : (
        <Loading />
      )}
    </Panel>
  );
}

function AwakeRow({ label, summary, testId }: { label: string; summary: Summary; testId: string }) {
  const awakePct = Math.min(100, Math.max(0, summary.awakeShare * 100));
  return (
    <div className="awake-row" data-testid={testId}>
      <div className="row spread">
        <strong>{label}</strong>
        <span className="muted small num">asleep {formatPercent(1 - summary.awakeShare)}</span>
      </div>
      <div className="bar split" aria-hidden="true">
        {/* A visible sliver for any awake time at all, so "a little" never looks like "none". */}
        <div
          className="bar-fill"
          style={{ width: summary.awakeMs > 0 ? `max(3px, ${awakePct.toFixed(2)}%)` : "0" }}
        />
      </div>
      <p className="small num">
        <span className="swatch awake" aria-hidden="true" />
        awake <span data-testid={`${testId}-awake`}>{formatDuration(summary.awakeMs)}</span> (
        {formatPercent(summary.awakeShare)}) · <span className="swatch asleep" aria-hidden="true" />
        asleep {formatDuration(summary.asleepMs)}
      </p>
    </div>
  );
}

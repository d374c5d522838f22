import { formatAge, formatClock } from "./format";
import { Loading, Panel } from "./panel";
import type { Overview } from "./types";

/** The next cron job, which wakes the agent shortly before it is due. */
export function CronPanel({ overview, now }: { overview: Overview | null; now: number }) {
  const cron = overview?.cron;
  return (
    <Panel id="cron" title="Next cron wake">
      {cron ? (
        cron.nextDueAt ? (
          <>
            <p className="big num" data-testid="cron-next">
              {formatClock(cron.nextDueAt, now)}
            </p>
            <p className="num">
              {formatAge(cron.nextDueAt, now)}
              {cron.nextJob ? (
                <>
                  {" "}
                  · job <span className="mono">{cron.nextJob}</span>
                </>
              ) : null}
            </p>
          </>
        ) : (
          <>
            <p className="big" data-testid="cron-next">
              none
            </p>
            <p className="muted">No cron job is scheduled, so only messages wake the agent.</p>
          </>
        )
      ) : (
        <Loading />
      )}
    </Panel>
  );
}

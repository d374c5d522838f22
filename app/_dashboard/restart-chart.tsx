import { formatAge, formatClock, plural, type RestartPoint, restartChart } from "./format";

const W = 300;
const H = 64;

/** Daemon restarts over time: one mark per restart, its height the sandbox's restart count. */
export function RestartChart({ points, now }: { points: RestartPoint[]; now: number }) {
  const chart = restartChart(points, now, W, H);
  const last = points.at(-1);
  return (
    <figure className="chart" data-testid="restart-chart">
      <svg viewBox={`0 -6 ${W} ${H + 12}`} role="img" aria-labelledby="restart-chart-title">
        <title id="restart-chart-title">
          {points.length
            ? `${plural(points.length, "daemon restart")} between ${formatClock(chart.from, now)} and now`
            : "No daemon restarts recorded"}
        </title>
        <line className="axis" x1={0} y1={H} x2={W} y2={H} />
        {chart.marks.map((m) => (
          <g key={`${m.point.at}-${m.point.restarts}`} className="mark">
            <line x1={m.x} y1={H} x2={m.x} y2={m.y} />
            <circle cx={m.x} cy={m.y} r={3.5}>
              <title>{`${plural(m.point.restarts, "restart")} in ${m.point.sandboxId ?? "a sandbox"}, ${formatClock(m.point.at, now)}`}</title>
            </circle>
          </g>
        ))}
      </svg>
      <figcaption className="muted small row spread num">
        <span>{formatClock(chart.from, now)}</span>
        <span data-testid="restart-summary">
          {last
            ? `${plural(points.length, "restart")} in the last 24 h, last ${formatAge(last.at, now)}`
            : "no restarts in the last 24 h"}
        </span>
        <span>now</span>
      </figcaption>
    </figure>
  );
}

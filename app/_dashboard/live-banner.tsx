import { formatAge, formatClock } from "./format";
import type { LiveState } from "./live-stream";

/**
 * "updated 2 s ago" while connected; a sticky banner while the server is unreachable, so an
 * old page never passes for a live one.
 */
export function LiveBanner({ live, now }: { live: LiveState; now: number }) {
  if (live.staleSince !== null)
    return (
      <div className="stale-banner" role="alert" data-testid="stale-banner">
        Cannot reach the ClawRun server. What you see is stale since{" "}
        {formatClock(live.staleSince, now)}; reconnecting…
      </div>
    );
  return (
    <p className="muted small live-note" data-testid="live-note" aria-live="off">
      {live.updatedAt === null ? "connecting…" : `live · updated ${formatAge(live.updatedAt, now)}`}
    </p>
  );
}

"use client";

import { useState } from "react";
import {
  describeExtendReason,
  formatAge,
  formatDuration,
  formatRestingOutlook,
  formatSleepOutlook,
  runwayShare,
} from "./format";
import { heartbeatPunctuality } from "./health";
import { Loading, Panel } from "./panel";
import type { Overview } from "./types";

/** Native TTL = activeDuration × this on create (the server's ttlMultiplier). */
const TTL_MULTIPLIER = 10;

/** The dead-man's switch: how much native TTL is left, the last heartbeat, and why it is awake. */
export function RunwayPanel({ overview, now }: { overview: Overview | null; now: number }) {
  const i = overview?.instance;
  const remaining = i?.ttlDeadline && i.sandboxId ? i.ttlDeadline - now : null;
  // The bar's scale: the TTL a new sandbox gets, or the most runway seen (extends can exceed it).
  const [maxSeen, setMaxSeen] = useState(0);
  if (remaining !== null && remaining > maxSeen) setMaxSeen(remaining);
  const scale = Math.max((overview?.settings.activeDurationMs ?? 0) * TTL_MULTIPLIER, maxSeen);
  const share = remaining === null ? 0 : runwayShare(remaining, scale);
  const hb = overview?.heartbeat;

  return (
    <Panel id="runway" title="Heartbeat and native TTL">
      {overview && i ? (
        <>
          <p className="big num" data-testid="ttl-left">
            {remaining === null
              ? "no sandbox"
              : remaining > 0
                ? `${formatDuration(remaining)} left`
                : "expired"}
          </p>
          <div className="bar" aria-hidden="true">
            <div className="bar-fill" style={{ width: `${(share * 100).toFixed(1)}%` }} />
          </div>
          <p className="muted small num">
            Native TTL, out of {formatDuration(scale)}; heartbeats extend it while the agent is
            busy.
          </p>
          <dl className="facts">
            <dt>Last heartbeat</dt>
            <dd className="num" data-testid="heartbeat-age">
              {hb && hb.sandboxId === i.sandboxId ? formatAge(hb.receivedAt, now) : "none yet"}
            </dd>
            <dt>Heartbeat</dt>
            <dd className="num" data-testid="heartbeat-punctuality">
              {hb && hb.sandboxId === i.sandboxId
                ? heartbeatPunctuality(now - hb.receivedAt, overview.settings.heartbeatIntervalMs)
                : "—"}
            </dd>
            <dt>Last extend</dt>
            <dd className="num">
              {i.lastExtend
                ? `${formatAge(i.lastExtend.at, now)} (${describeExtendReason(i.lastExtend.reason)})`
                : "none"}
            </dd>
          </dl>
          <p data-testid="sleep-outlook">
            {formatSleepOutlook(overview.forecast, now) ??
              formatRestingOutlook(i.status, Boolean(i.lost))}
          </p>
        </>
      ) : (
        <Loading />
      )}
    </Panel>
  );
}

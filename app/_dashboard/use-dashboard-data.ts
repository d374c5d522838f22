"use client";

import { useCallback, useEffect, useRef, useState } from "react";
import { ApiError, api } from "./api";
import { TRANSITIONAL_STATUSES } from "./format";
import type {
  ConfigRow,
  DashboardData,
  InboxView,
  LifecycleEvent,
  LogTail,
  Overview,
  SnapshotInfo,
} from "./types";

/** Polling periods: calm, during a transition or right after an action, and in a hidden tab. */
const CALM_MS = 3_000;
const FAST_MS = 1_000;
const HIDDEN_MS = 15_000;
/** After an action the page polls fast for this long, even before the server reports a transition. */
const FAST_AFTER_ACTION_MS = 15_000;
/** Events, snapshots, inbox and logs change less often than the status: refresh them at the calm rate. */
const DETAILS_MS = 3_000;

const EMPTY: DashboardData = {
  overview: null,
  events: null,
  snapshots: null,
  inbox: null,
  logs: null,
  config: null,
};

export interface DashboardFeed {
  data: DashboardData;
  /** Why the last refresh failed, in words; null when it worked. */
  error: string | null;
  /** Server clock minus browser clock, so ages agree with the server's timestamps. */
  skewMs: number;
  /** Refresh everything now and poll fast for a while (after an action). */
  refreshNow(): void;
}

/** Loads the dashboard and keeps it fresh by polling; a lost session sends the operator to sign in. */
export function useDashboardData(): DashboardFeed {
  const [data, setData] = useState<DashboardData>(EMPTY);
  const [error, setError] = useState<string | null>(null);
  const [skewMs, setSkewMs] = useState(0);
  const fastUntil = useRef(0);
  const detailsAt = useRef(0);
  const lastStatus = useRef<string | null>(null);
  const wake = useRef<() => void>(() => undefined);

  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    // One poll at a time: a refresh asked for mid-poll runs right after it, not beside it.
    let running = false;
    let again = false;

    const poll = async () => {
      if (running) {
        again = true;
        return;
      }
      running = true;
      clearTimeout(timer);
      let transitioning = false;
      try {
        const overview = await api<Overview>("/api/sandbox");
        if (stopped) return;
        transitioning = TRANSITIONAL_STATUSES.has(overview.instance.status);
        setSkewMs(overview.now - Date.now());
        setData((d) => ({ ...d, overview }));
        // A status change (or an action) makes the other panels stale at once.
        const statusChanged = lastStatus.current !== overview.instance.status;
        lastStatus.current = overview.instance.status;
        if (statusChanged || Date.now() - detailsAt.current >= DETAILS_MS - 100) {
          detailsAt.current = Date.now();
          await loadDetails((patch) => !stopped && setData((d) => ({ ...d, ...patch })));
        }
        if (!stopped) setError(null);
      } catch (err) {
        if (stopped) return;
        if (err instanceof ApiError && err.status === 401) {
          window.location.assign("/login");
          return;
        }
        setError(err instanceof Error ? err.message : String(err));
      }
      running = false;
      if (stopped) return;
      if (again) {
        again = false;
        void poll();
        return;
      }
      const fast = transitioning || Date.now() < fastUntil.current;
      const every = document.hidden ? HIDDEN_MS : fast ? FAST_MS : CALM_MS;
      timer = setTimeout(poll, every);
    };

    wake.current = () => {
      detailsAt.current = 0;
      void poll();
    };
    const onVisible = () => {
      if (!document.hidden) wake.current();
    };
    document.addEventListener("visibilitychange", onVisible);
    void poll();
    return () => {
      stopped = true;
      clearTimeout(timer);
      document.removeEventListener("visibilitychange", onVisible);
    };
  }, []);

  const refreshNow = useCallback(() => {
    fastUntil.current = Date.now() + FAST_AFTER_ACTION_MS;
    wake.current();
  }, []);

  return { data, error, skewMs, refreshNow };
}

/** The slower-moving panels, fetched together; one failing panel does not blank the others. */
async function loadDetails(apply: (patch: Partial<DashboardData>) => void): Promise<void> {
  const [events, snapshots, inbox, logs, config] = await Promise.allSettled([
    api<{ events: LifecycleEvent[] }>("/api/sandbox/events?limit=200"),
    api<{ snapshots: SnapshotInfo[] }>("/api/sandbox/snapshots"),
    api<InboxView>("/api/sandbox/inbox"),
    api<LogTail>("/api/sandbox/logs"),
    api<{ rows: ConfigRow[] }>("/api/sandbox/config"),
  ]);
  const patch: Partial<DashboardData> = {};
  if (events.status === "fulfilled") patch.events = events.value.events;
  if (snapshots.status === "fulfilled") patch.snapshots = snapshots.value.snapshots;
  if (inbox.status === "fulfilled") patch.inbox = inbox.value;
  if (logs.status === "fulfilled") patch.logs = logs.value;
  if (config.status === "fulfilled") patch.config = config.value.rows;
  apply(patch);
  const failed = [events, snapshots, inbox, logs, config].find((r) => r.status === "rejected");
  if (failed) throw failed.reason;
}

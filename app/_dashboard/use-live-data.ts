"use client";

import { useCallback, useEffect, useRef, useState } from "react";
import { useApiPath } from "./agent-context";
import { DETAIL_SOURCES, type DetailKey } from "./detail-sources";
import { type LiveState, NOT_HEARD, watchStream } from "./live-stream";
import type { DashboardData, Overview, Transition } from "./types";

/** Details (events, logs, …) are refreshed this often even when nothing else changes. */
const DETAILS_MS = 10_000;
/** Statuses kept for the "recent transitions" trail. */
const TRAIL = 6;

const EMPTY: DashboardData = {
  overview: null,
  events: null,
  snapshots: null,
  inbox: null,
  logs: null,
  config: null,
  cost: null,
};

export interface DashboardFeed {
  data: DashboardData;
  /** Each panel's own load error (a panel that fails says so itself). */
  panelErrors: Partial<Record<DetailKey, string>>;
  skewMs: number;
  live: LiveState;
  /** The latest statuses entered, oldest first, including ones passed between two pushes. */
  trail: Transition[];
  refreshNow(): void;
}

/**
 * The dashboard's data, pushed by the server (server-sent events, GET /api/sandbox/stream of
 * the shown agent):
 * the overview on every state change, the slower panels fetched when the state or the event
 * log moved. When the stream goes quiet or breaks, the page is marked stale (never silently
 * old); a lost session sends the operator to sign in.
 */
export function useLiveData(): DashboardFeed {
  const [data, setData] = useState<DashboardData>(EMPTY);
  const [panelErrors, setPanelErrors] = useState<DashboardFeed["panelErrors"]>({});
  const [skewMs, setSkewMs] = useState(0);
  const [live, setLive] = useState<LiveState>(NOT_HEARD);
  const [trail, setTrail] = useState<Transition[]>([]);
  const reload = useRef<() => void>(() => undefined);
  const at = useApiPath();

  useEffect(() => {
    let stopped = false;
    let lastMarker = "";
    let detailsAt = 0;
    let loading = false;
    let again = false;

    const loadDetails = async () => {
      if (loading) {
        again = true;
        return;
      }
      loading = true;
      detailsAt = Date.now();
      const results = await Promise.allSettled(DETAIL_SOURCES.map((s) => s.load(at)));
      if (stopped) return;
      const patch: Partial<DashboardData> = {};
      const errors: DashboardFeed["panelErrors"] = {};
      results.forEach((r, n) => {
        const src = DETAIL_SOURCES[n];
        if (!src) return;
        if (r.status === "fulfilled") Object.assign(patch, { [src.key]: r.value });
        else errors[src.key] = r.reason instanceof Error ? r.reason.message : String(r.reason);
      });
      setData((d) => ({ ...d, ...patch }));
      setPanelErrors(errors);
      loading = false;
      if (again) {
        again = false;
        void loadDetails();
      }
    };
    reload.current = () => void loadDetails();

    const stopWatching = watchStream({
      url: at("/api/sandbox/stream"),
      probeUrl: at("/api/sandbox"),
      setLive,
      onReconnect: () => void loadDetails(),
      on: {
        overview: (data) => {
          const { marker, transitions, overview } = data as {
            marker: string;
            transitions: Transition[];
            overview: Overview;
          };
          const i = overview.instance;
          setTrail((t) => extendTrail(t, [...transitions, { status: i.status, at: i.since }]));
          setSkewMs(overview.now - Date.now());
          setData((d) => ({ ...d, overview }));
          if (marker !== lastMarker || Date.now() - detailsAt >= DETAILS_MS) {
            lastMarker = marker;
            void loadDetails();
          }
        },
        ping: () => {
          if (Date.now() - detailsAt >= DETAILS_MS) void loadDetails();
        },
      },
    });
    return () => {
      stopped = true;
      stopWatching();
    };
  }, [at]);

  const refreshNow = useCallback(() => reload.current(), []);
  return { data, panelErrors, skewMs, live, trail, refreshNow };
}

/** Pure: the trail with new entries appended, a status repeated at the same time only once. */
export function extendTrail(trail: Transition[], more: Transition[]): Transition[] {
  const out = [...trail];
  for (const t of more) {
    const last = out.at(-1);
    if (last && last.status === t.status && last.at === t.at) continue;
    if (last && last.status === t.status && t.at <= last.at) continue;
    out.push(t);
  }
  return out.slice(-TRAIL);
}

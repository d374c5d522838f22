"use client";

import { useCallback, useEffect, useRef, useState } from "react";
import { useApiPath } from "./agent-context";
import { ApiError, api } from "./api";
import { DETAIL_SOURCES, type DetailKey } from "./detail-sources";
import type { DashboardData, Overview, Transition } from "./types";

/** No message (overview or ping) for this long: the server is treated as unreachable. */
const SILENT_MS = 15_000;
/** Details (events, logs, …) are refreshed this often even when nothing else changes. */
const DETAILS_MS = 10_000;
/** A stream the server refused (401, 503) is not retried by EventSource itself. */
const REOPEN_MS = 2_000;
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

export interface LiveState {
  /** When the last message arrived (browser clock); null before the first. */
  updatedAt: number | null;
  /** Since when the server has been unreachable; null while connected. */
  staleSince: number | null;
  /** Counts reconnections, so stale errors elsewhere can be cleared on each. */
  reconnects: number;
}

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
  const [live, setLive] = useState<LiveState>({ updatedAt: null, staleSince: null, reconnects: 0 });
  const [trail, setTrail] = useState<Transition[]>([]);
  const reload = useRef<() => void>(() => undefined);
  const at = useApiPath();

  useEffect(() => {
    let stopped = false;
    let source: EventSource | null = null;
    let reopen: ReturnType<typeof setTimeout> | undefined;
    let lastMessage = Date.now();
    let lastMarker = "";
    let detailsAt = 0;
    let loading = false;
    let again = false;
    let stale = false;

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

    const markStale = () => {
      if (stale) return;
      stale = true;
      setLive((l) => ({ ...l, staleSince: l.updatedAt ?? Date.now() }));
    };
    const heard = () => {
      lastMessage = Date.now();
      if (stale) {
        stale = false;
        setLive((l) => ({
          updatedAt: lastMessage,
          staleSince: null,
          reconnects: l.reconnects + 1,
        }));
        void loadDetails();
      } else setLive((l) => ({ ...l, updatedAt: lastMessage }));
    };

    const open = () => {
      if (stopped) return;
      source = new EventSource(at("/api/sandbox/stream"));
      source.addEventListener("overview", (e) => {
        const { marker, transitions, overview } = JSON.parse((e as MessageEvent).data) as {
          marker: string;
          transitions: Transition[];
          overview: Overview;
        };
        const i = overview.instance;
        setTrail((t) => extendTrail(t, [...transitions, { status: i.status, at: i.since }]));
        setSkewMs(overview.now - Date.now());
        setData((d) => ({ ...d, overview }));
        heard();
        if (marker !== lastMarker || Date.now() - detailsAt >= DETAILS_MS) {
          lastMarker = marker;
          void loadDetails();
        }
      });
      source.addEventListener("ping", () => {
        heard();
        if (Date.now() - detailsAt >= DETAILS_MS) void loadDetails();
      });
      source.onerror = () => {
        markStale();
        if (source?.readyState !== EventSource.CLOSED) return; // the browser retries itself
        source = null;
        // Refused outright: a lost session answers 401 (then sign in again), else try later.
        void api<Overview>(at("/api/sandbox")).then(
          () => undefined,
          (err: unknown) => {
            if (err instanceof ApiError && err.status === 401) window.location.assign("/login");
          },
        );
        reopen = setTimeout(open, REOPEN_MS);
      };
    };

    const watchdog = setInterval(() => {
      if (Date.now() - lastMessage > SILENT_MS) markStale();
    }, 1_000);
    open();
    return () => {
      stopped = true;
      clearInterval(watchdog);
      clearTimeout(reopen);
      source?.close();
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

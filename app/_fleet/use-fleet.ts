"use client";

import { useEffect, useState } from "react";
import type { FleetRow } from "@/src/server/dashboard/fleet";
import { ApiError, api } from "../_dashboard/api";
import type { LiveState } from "../_dashboard/use-live-data";

/** No message (rows or ping) for this long: the server is treated as unreachable. */
const SILENT_MS = 15_000;
/** A stream the server refused (401, 503) is not retried by EventSource itself. */
const REOPEN_MS = 2_000;

export interface FleetFeed {
  rows: FleetRow[] | null;
  skewMs: number;
  live: LiveState;
}

/**
 * The fleet's rows, pushed by the server (GET /api/fleet/stream) whenever any agent's state
 * moves; stale and said so when the stream goes quiet, sign-in again on a lost session —
 * the same rules as one agent's dashboard (use-live-data.ts).
 */
export function useFleet(initial: FleetRow[] | null = null): FleetFeed {
  // Rows the server rendered the page with: the table paints with the HTML, before the stream.
  const [rows, setRows] = useState<FleetRow[] | null>(initial);
  const [skewMs, setSkewMs] = useState(0);
  const [live, setLive] = useState<LiveState>({ updatedAt: null, staleSince: null, reconnects: 0 });

  useEffect(() => {
    let stopped = false;
    let source: EventSource | null = null;
    let reopen: ReturnType<typeof setTimeout> | undefined;
    let lastMessage = Date.now();
    let stale = false;

    const markStale = () => {
      if (stale) return;
      stale = true;
      setLive((l) => ({ ...l, staleSince: l.updatedAt ?? Date.now() }));
    };
    const heard = () => {
      lastMessage = Date.now();
      const reconnected = stale;
      stale = false;
      setLive((l) => ({
        updatedAt: lastMessage,
        staleSince: null,
        reconnects: l.reconnects + (reconnected ? 1 : 0),
      }));
    };
    const open = () => {
      if (stopped) return;
      source = new EventSource("/api/fleet/stream");
      source.addEventListener("fleet", (e) => {
        const msg = JSON.parse((e as MessageEvent).data) as { now: number; agents: FleetRow[] };
        setRows(msg.agents);
        setSkewMs(msg.now - Date.now());
        heard();
      });
      source.addEventListener("ping", heard);
      source.onerror = () => {
        markStale();
        if (source?.readyState !== EventSource.CLOSED) return; // the browser retries itself
        source = null;
        void api("/api/agents").catch((err: unknown) => {
          if (err instanceof ApiError && err.status === 401) window.location.assign("/login");
        });
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
  }, []);

  return { rows, skewMs, live };
}

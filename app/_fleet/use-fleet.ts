"use client";

import { useEffect, useState } from "react";
import type { FleetRow } from "@/src/server/dashboard/fleet";
import { type LiveState, NOT_HEARD, watchStream } from "../_dashboard/live-stream";

export interface FleetFeed {
  rows: FleetRow[] | null;
  skewMs: number;
  live: LiveState;
}

/**
 * The fleet's rows, pushed by the server (GET /api/fleet/stream) whenever any agent's state
 * moves; stale and said so when the stream goes quiet, sign-in again on a lost session —
 * the same rules as one agent's dashboard (live-stream.ts).
 */
export function useFleet(initial: FleetRow[] | null = null): FleetFeed {
  // Rows the server rendered the page with: the table paints with the HTML, before the stream.
  const [rows, setRows] = useState<FleetRow[] | null>(initial);
  const [skewMs, setSkewMs] = useState(0);
  const [live, setLive] = useState<LiveState>(NOT_HEARD);

  useEffect(
    () =>
      watchStream({
        url: "/api/fleet/stream",
        probeUrl: "/api/agents",
        setLive,
        on: {
          fleet: (data) => {
            const msg = data as { now: number; agents: FleetRow[] };
            setRows(msg.agents);
            setSkewMs(msg.now - Date.now());
          },
          ping: () => undefined,
        },
      }),
    [],
  );

  return { rows, skewMs, live };
}

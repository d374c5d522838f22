"use client";

import { useCallback, useEffect, useState } from "react";
import { useApiPath } from "./agent-context";
import { api } from "./api";
import { asSentence } from "./format";
import type { Overview } from "./types";

/** How long buttons stay disabled waiting for the server to show an accepted action's effect. */
const SETTLE_LIMIT_MS = 15_000;

export interface Actions {
  /** The label of the request in flight (or awaiting its visible effect), else null. */
  busy: string | null;
  /** The last action's error in words; cleared by the next action. */
  error: string | null;
  /** Polite announcement of what was just asked for (aria-live). */
  notice: string | null;
  /** `path` is the plain operator route (`/api/sandbox/…`); the shown agent's prefix is added here. */
  run(label: string, path: string, init?: { method?: string; body?: unknown }): Promise<boolean>;
}

/** What an action changes on the server: status, when it was entered, or the last snapshot. */
function fingerprint(o: Overview | null): string {
  return o ? `${o.instance.status}|${o.instance.since}|${o.instance.snapshotId}` : "";
}

/**
 * Runs operator actions one at a time. The API answers 202 before the work starts, so after
 * an accepted action the buttons stay disabled until the polled state shows a change (or a
 * bounded wait passes): a second click cannot race the first.
 */
export function useActions(
  overview: Overview | null,
  refreshNow: () => void,
  reconnects = 0,
): Actions {
  const [inFlight, setInFlight] = useState<string | null>(null);
  const [settling, setSettling] = useState<{ label: string; from: string } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const current = fingerprint(overview);
  const at = useApiPath();

  const settledIn = overview && !overview.transitioning ? overview.instance : null;
  useEffect(() => {
    // Settled: the state moved and is at rest again (a wake passes creating and starting).
    if (settling && settledIn && current !== settling.from) {
      setSettling(null);
      // The status panel now tells the story (and announces it); the notice would be stale.
      setNotice(null);
      // A wake that ended in failure again says so here too, next to the button pressed.
      if (settledIn.status === "failed")
        setError(`${settling.label} failed: ${asSentence(settledIn.error ?? settledIn.reason)}`);
    }
  }, [current, settling, settledIn]);

  // An error from while the server was away is stale once it is back.
  useEffect(() => {
    if (reconnects > 0) setError(null);
  }, [reconnects]);

  useEffect(() => {
    if (!settling) return;
    const id = setTimeout(() => setSettling(null), SETTLE_LIMIT_MS);
    return () => clearTimeout(id);
  }, [settling]);

  const run = useCallback(
    async (label: string, path: string, init?: { method?: string; body?: unknown }) => {
      setInFlight(label);
      setError(null);
      setNotice(`${label}: sent`);
      const before = current;
      try {
        const res = await api<{ action?: string; to?: string }>(at(path), {
          method: "POST",
          ...init,
        });
        setNotice(res.to ? `${label}: accepted, now ${res.to}` : `${label}: done`);
        // Only state-changing lifecycle actions (202 with a transition) are awaited.
        if (res.action) setSettling({ label, from: before });
        return true;
      } catch (err) {
        setError(`${label} failed: ${err instanceof Error ? err.message : String(err)}`);
        setNotice(null);
        return false;
      } finally {
        setInFlight(null);
        refreshNow();
      }
    },
    [current, refreshNow, at],
  );

  return { busy: inFlight ?? settling?.label ?? null, error, notice, run };
}

"use client";

import { useState } from "react";
import type { FleetRow } from "@/src/server/dashboard/fleet";
import { formatDuration, formatStatusAge } from "../_dashboard/format";
import { LiveBanner } from "../_dashboard/live-banner";
import { SignOutButton } from "../_dashboard/sign-out-button";
import { useNow } from "../_dashboard/use-now";
import { FleetCostCard } from "./fleet-cost-card";
import { formatSleepsIn } from "./fleet-format";
import { nextSort, type Sort, type SortKey, sortRows } from "./sort-rows";
import { useFleet } from "./use-fleet";

const COLUMNS: { key: SortKey; label: string; numeric?: boolean }[] = [
  { key: "name", label: "Agent" },
  { key: "status", label: "Status" },
  { key: "since", label: "Since" },
  { key: "activeUntil", label: "Sleeps" },
  { key: "reason", label: "Reason" },
  { key: "pending", label: "Pending", numeric: true },
  { key: "failed", label: "Failed", numeric: true },
  { key: "awakeTodayMs", label: "Awake today", numeric: true },
];

/**
 * `/` of a deployment with several agents (docs/several-agents.md): one row per agent, live,
 * sortable by any column; each name opens that agent's dashboard at /agents/<name>.
 */
export function FleetView({ initialRows = null }: { initialRows?: FleetRow[] | null }) {
  const feed = useFleet(initialRows);
  const stale = feed.live.staleSince !== null;
  const now = useNow(feed.skewMs, stale ? (feed.live.staleSince ?? undefined) : undefined);
  const [sort, setSort] = useState<Sort | null>(null);
  const rows = feed.rows ? sortRows(feed.rows, sort) : null;

  return (
    <>
      <header className="topbar">
        <div className="brand">
          <h1>ClawRun</h1>
          <span className="muted small">
            fleet{feed.rows ? ` · ${feed.rows.length} agents` : ""}
          </span>
        </div>
        <div className="row">
          {stale ? null : <LiveBanner live={feed.live} now={Date.now()} />}
          <SignOutButton />
        </div>
      </header>
      <main className={stale ? "dash stale" : "dash"} aria-busy={rows === null}>
        {stale ? <LiveBanner live={feed.live} now={Date.now()} /> : null}
        <div className="grid">
          <section className="card wide fleet" aria-labelledby="fleet-title">
            <h2 id="fleet-title">Agents</h2>
            <div className="fleet-scroll">
              <table className="fleet-table" data-testid="fleet-table">
                <caption className="visually-hidden">
                  Every agent of this deployment; choose a column header to sort by it.
                </caption>
                <thead>
                  <tr>
                    {COLUMNS.map((c) => (
                      <th
                        key={c.key}
                        scope="col"
                        className={c.numeric ? "right" : undefined}
                        aria-sort={
                          sort?.key === c.key
                            ? sort.dir === "asc"
                              ? "ascending"
                              : "descending"
                            : undefined
                        }
                      >
                        <button
                          type="button"
                          className="sort-button"
                          onClick={() => setSort((s) => nextSort(s, c.key))}
                          data-testid={`sort-${c.key}`}
                        >
                          {c.label}
                          <span aria-hidden="true" className="sort-mark">
                            {sort?.key === c.key ? (sort.dir === "asc" ? " ▲" : " ▼") : ""}
                          </span>
                        </button>
                      </th>
                    ))}
                  </tr>
                </thead>
                <tbody>
                  {rows === null ? (
                    <tr>
                      <td colSpan={COLUMNS.length} className="muted">
                        Loading…
                      </td>
                    </tr>
                  ) : (
                    rows.map((r) => (
                      <tr key={r.name} data-testid="fleet-row" data-agent={r.name}>
                        <th scope="row">
                          <a
                            href={`/agents/${encodeURIComponent(r.name)}`}
                            data-testid="fleet-name"
                          >
                            {r.name}
                          </a>
                          {r.isDefault ? <span className="pill default-mark">default</span> : null}
                        </th>
                        <td>
                          <span className={`status-${r.status}`} data-testid="fleet-status">
                            {r.status}
                          </span>
                        </td>
                        {/* Ages are computed from the clock where they render: the server's
                            HTML and the browser's first render may be a second apart. */}
                        <td className="num nowrap" suppressHydrationWarning>
                          {formatStatusAge(r.status, r.since, now)}
                        </td>
                        <td
                          className="num nowrap"
                          data-testid="fleet-sleeps"
                          suppressHydrationWarning
                        >
                          {formatSleepsIn(r, now)}
                        </td>
                        <td className="fleet-reason">
                          {r.error ? <span className="error">{r.error}</span> : r.reason || "—"}
                        </td>
                        <td className="num right">{r.pending}</td>
                        <td className={r.failed ? "num right bad" : "num right"}>{r.failed}</td>
                        <td className="num right nowrap">{formatDuration(r.awakeTodayMs)}</td>
                      </tr>
                    ))
                  )}
                </tbody>
              </table>
            </div>
          </section>
          <FleetCostCard />
        </div>
      </main>
    </>
  );
}

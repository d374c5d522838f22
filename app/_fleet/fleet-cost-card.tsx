"use client";

import { useCallback, useEffect, useState } from "react";
import type { FleetCost } from "@/src/server/dashboard/fleet-cost";
import { api } from "../_dashboard/api";
import { formatDuration } from "../_dashboard/format";
import { Loading, Panel } from "../_dashboard/panel";

const usd = (n: number) => (n > 0 && n < 0.01 ? "< $0.01" : `$${n.toFixed(2)}`);

/**
 * This month per agent and for the deployment (GET /api/fleet/cost, docs/several-agents.md
 * "The fleet's cost"): read on opening and on Refresh, not with every fleet update, because it
 * lists each agent's snapshots on the provider.
 */
export function FleetCostCard() {
  const [cost, setCost] = useState<FleetCost | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);
  const load = useCallback(async () => {
    setLoading(true);
    try {
      setCost(await api<FleetCost>("/api/fleet/cost"));
      setError(null);
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setLoading(false);
    }
  }, []);
  useEffect(() => {
    void load();
  }, [load]);

  return (
    <Panel
      id="fleet-cost"
      title="Cost this month"
      wide
      aside={
        <button type="button" onClick={() => void load()} disabled={loading}>
          {loading ? "Refreshing…" : "Refresh"}
        </button>
      }
    >
      {error ? (
        <p className="error" data-testid="fleet-cost-error">
          {error}
        </p>
      ) : null}
      {cost ? (
        <>
          <table className="cost-table small num" data-testid="fleet-cost-table">
            <thead>
              <tr>
                <th scope="col">Agent</th>
                <th scope="col">Awake</th>
                <th scope="col" className="right">
                  Sandbox and store
                </th>
                <th scope="col" className="right">
                  Model
                </th>
                <th scope="col" className="right">
                  Total
                </th>
              </tr>
            </thead>
            <tbody>
              {cost.agents.map((l) => (
                <tr key={l.name} data-testid="fleet-cost-row" data-agent={l.name}>
                  <th scope="row">{l.name}</th>
                  {l.error ? (
                    <td colSpan={4} className="error">
                      {l.error}
                    </td>
                  ) : (
                    <>
                      <td>{formatDuration(l.awakeMs)}</td>
                      <td className="right">
                        {l.unpriced ? "not priced" : `${l.atMost ? "≤ " : ""}${usd(l.sandboxUsd)}`}
                      </td>
                      <td className="right">{usd(l.modelUsd)}</td>
                      <td className="right">{usd(l.totalUsd)}</td>
                    </>
                  )}
                </tr>
              ))}
            </tbody>
            <tfoot>
              <tr data-testid="fleet-cost-total">
                <th scope="row">All agents{cost.incomplete ? " (incomplete)" : ""}</th>
                <td />
                <td className="right">{usd(cost.total.sandboxUsd)}</td>
                <td className="right">{usd(cost.total.modelUsd)}</td>
                <td className="right">
                  <strong>{usd(cost.total.totalUsd)}</strong>
                </td>
              </tr>
            </tfoot>
          </table>
          <p className="muted small">
            Each line is that agent&apos;s own cost card; its dashboard shows the details.{" "}
            {cost.rates.map((r) => (
              <a key={r.source} href={r.source} rel="noreferrer" target="_blank">
                rates of {r.asOf}
              </a>
            ))}
          </p>
        </>
      ) : error ? null : (
        <Loading />
      )}
    </Panel>
  );
}

import type { ConfirmRequest } from "./confirm-dialog";
import { formatDuration } from "./format";
import { ModelSpendSection } from "./model-spend-section";
import { Loading, Panel } from "./panel";
import type { CostSummary } from "./types";
import type { Actions } from "./use-actions";

const usd = (n: number) => (n > 0 && n < 0.01 ? "< $0.01" : `$${n.toFixed(2)}`);

/**
 * This month's awake time, its price on the configured provider, and the always-on figure;
 * below, the agent's model spend (the total above is sandbox and store only).
 */
export function CostCard({
  cost,
  error,
  actions,
  confirm,
}: {
  cost: CostSummary | null;
  error?: string;
  actions: Actions;
  confirm(request: ConfirmRequest): Promise<boolean>;
}) {
  return (
    <Panel id="cost" title="Cost this month" aside={cost ? `${cost.provider}` : null}>
      {error ? (
        <p className="error" data-testid="cost-error">
          {error}
        </p>
      ) : null}
      {cost ? (
        <>
          <p className="big num" data-testid="cost-total">
            {usd(cost.totalUsd)}
          </p>
          <p className="small num" data-testid="cost-awake">
            awake {formatDuration(cost.awakeMs)} of {formatDuration(cost.elapsedMs)} ·{" "}
            {cost.sandboxesCreated} sandbox{cost.sandboxesCreated === 1 ? "" : "es"} created
          </p>
          <table className="cost-table small num">
            <tbody>
              {cost.lines.map((l) => (
                <tr key={l.label}>
                  <th scope="row">{l.label}</th>
                  <td>{l.quantity}</td>
                  <td className="right">
                    {l.atMost ? "≤ " : ""}
                    {usd(l.usd)}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <p data-testid="cost-always-on">
            Always on, the same month: <strong className="num">{usd(cost.alwaysOnUsd)}</strong>
          </p>
          <p className="muted small">
            {cost.note}{" "}
            {cost.rates.map((r) => (
              <a key={r.source} href={r.source} rel="noreferrer" target="_blank">
                rates of {r.asOf}
              </a>
            ))}
          </p>
          {cost.model ? (
            <ModelSpendSection model={cost.model} actions={actions} confirm={confirm} />
          ) : null}
        </>
      ) : error ? null : (
        <Loading />
      )}
    </Panel>
  );
}

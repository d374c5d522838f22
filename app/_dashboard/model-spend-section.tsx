import type { ModelSpendCard } from "@/src/server/dashboard/model-spend";
import type { ConfirmRequest } from "./confirm-dialog";
import type { Actions } from "./use-actions";

/**
 * Model spend through the gateway, beside the sandbox and store cost: today and this month
 * against the caps, a banner at 80 % and another once a cap refuses calls, spend per
 * conversation and per model, and the operator's "raise today's cap".
 */
export function ModelSpendSection({
  model,
  actions,
  confirm,
}: {
  model: ModelSpendCard;
  actions: Actions;
  confirm(request: ConfirmRequest): Promise<boolean>;
}) {
  const step = model.raiseStepUsd;
  const raise = async () => {
    if (step === null) return;
    const ok = await confirm({
      title: "Raise today's model budget?",
      body: (
        <p>
          The agent may spend ${step} more on model calls today (UTC). Tomorrow the configured cap
          applies again. The raise is recorded in the event log.
        </p>
      ),
      confirmLabel: `Raise by $${step}`,
    });
    if (ok)
      await actions.run("Raise today's cap", "/api/sandbox/usage/raise", { body: { usd: step } });
  };
  return (
    <section aria-label="Model spend" data-testid="model-spend">
      <h3 className="small">Model calls</h3>
      {model.banner ? (
        <p
          role="alert"
          className={model.banner.kind === "reached" ? "bad" : "warn"}
          data-testid={`model-banner-${model.banner.kind}`}
        >
          {model.banner.text}
        </p>
      ) : null}
      <p className="small num" data-testid="model-today">
        today {model.today}
      </p>
      <p className="small num" data-testid="model-month">
        this month {model.month}
      </p>
      <SpendTable
        caption="per conversation"
        rows={model.byConversation}
        testId="model-conversations"
      />
      <SpendTable caption="per model" rows={model.byModel} testId="model-models" />
      {step !== null ? (
        <button
          type="button"
          disabled={actions.busy !== null}
          onClick={raise}
          data-testid="model-raise"
        >
          Raise today's cap by ${step}
        </button>
      ) : null}
    </section>
  );
}

function SpendTable({
  caption,
  rows,
  testId,
}: {
  caption: string;
  rows: ModelSpendCard["byModel"];
  testId: string;
}) {
  if (rows.length === 0) return null;
  return (
    <table className="cost-table small num" data-testid={testId}>
      <caption className="muted">{caption}</caption>
      <thead>
        <tr>
          <th scope="col" />
          <th scope="col" className="right">
            today
          </th>
          <th scope="col" className="right">
            month
          </th>
          <th scope="col" className="right">
            calls
          </th>
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr key={r.label}>
            <th scope="row">{r.label}</th>
            <td className="right">{r.today}</td>
            <td className="right">{r.month}</td>
            <td className="right">{r.calls}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

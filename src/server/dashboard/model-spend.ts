import type { UsageView } from "../model-gateway/usage-view";

/** Model spend as the cost card shows it: every figure already in words. */
export interface ModelSpendCard {
  today: string;
  month: string;
  /** A cap was hit (calls are being refused), else ≥ 80 % of one; null: neither. */
  banner: { kind: "reached" | "warning"; text: string } | null;
  byConversation: Row[];
  byModel: Row[];
  /** Dollars the "raise today's cap" button adds (the daily cap itself); null: no daily cap. */
  raiseStepUsd: number | null;
}

interface Row {
  label: string;
  today: string;
  month: string;
  calls: string;
}

/** Cents for dollars, four places below one cent (a model call often costs less). */
export function formatModelUsd(usd: number): string {
  if (usd === 0) return "$0.00";
  if (usd < 0.01) return `$${usd.toFixed(4)}`;
  return `$${usd.toFixed(2)}`;
}

function periodLine(p: UsageView["today"] | UsageView["month"]): string {
  if (p.capUsd === null) return `${formatModelUsd(p.spentUsd)} (no cap)`;
  const pct = p.capUsd > 0 ? Math.floor((p.spentUsd / p.capUsd) * 100) : 100;
  return `${formatModelUsd(p.spentUsd)} of ${formatModelUsd(p.capUsd)} (${pct} %)`;
}

/** Pure: the cap refusing calls now (the month's first: a raise of today's does not lift it). */
export function capReached(view: Pick<UsageView, "today" | "month">): "daily" | "monthly" | null {
  if (view.month.reached) return "monthly";
  return view.today.reached ? "daily" : null;
}

/** Pure: the card's model section from the usage view. */
export function modelSpendCard(view: UsageView): ModelSpendCard {
  const reached = capReached(view);
  let banner: ModelSpendCard["banner"] = null;
  if (reached) {
    const p = reached === "daily" ? view.today : view.month;
    const when = reached === "daily" ? "00:00 UTC" : `${p.resetsAt.slice(0, 10)} 00:00 UTC`;
    banner = {
      kind: "reached",
      text: `The ${reached} model budget of ${formatModelUsd(p.capUsd ?? 0)} is reached: the agent's model calls are refused until ${when}.`,
    };
  } else {
    const warned = [["today's", view.today] as const, ["this month's", view.month] as const].find(
      ([, p]) => p.warning,
    );
    if (warned) {
      const [name, p] = warned;
      banner = {
        kind: "warning",
        text: `Model spend is at ${formatModelUsd(p.spentUsd)}, over 80 % of ${name} budget of ${formatModelUsd(p.capUsd ?? 0)}.`,
      };
    }
  }
  const rows = <T>(
    today: T[],
    month: T[],
    keyOf: (x: T) => string,
    labelOf: (x: T) => string,
    costOf: (x: T) => number,
    callsOf: (x: T) => number,
  ): Row[] =>
    month.map((m) => {
      const t = today.find((x) => keyOf(x) === keyOf(m));
      return {
        label: labelOf(m),
        today: formatModelUsd(t ? costOf(t) : 0),
        month: formatModelUsd(costOf(m)),
        calls: String(callsOf(m)),
      };
    });
  type Conv = UsageView["month"]["conversations"][number];
  type Model = UsageView["month"]["models"][number];
  const convKey = (c: Conv) => `${c.channel}\u0000${c.conversation}`;
  return {
    today: periodLine(view.today),
    month: periodLine(view.month),
    banner,
    byConversation: rows<Conv>(
      view.today.conversations,
      view.month.conversations,
      convKey,
      (c) => (c.conversation === null ? "unattributed" : `${c.channel} · ${c.conversation}`),
      (c) => c.costUsd,
      (c) => c.calls,
    ),
    byModel: rows<Model>(
      view.today.models,
      view.month.models,
      (m) => m.model,
      (m) => m.model,
      (m) => m.costUsd,
      (m) => m.calls,
    ),
    raiseStepUsd:
      view.today.capUsd === null ? null : Math.max(1, view.today.capUsd - view.today.raisedUsd),
  };
}

import { z } from "zod";
import { flag } from "../args";
import type { Command } from "../command";
import { EXIT } from "../exit-codes";

const period = z.looseObject({
  spentUsd: z.number(),
  capUsd: z.number().nullable(),
  warning: z.boolean(),
  resetsAt: z.string(),
  models: z.array(
    z.looseObject({
      model: z.string(),
      costUsd: z.number(),
      calls: z.number(),
      inputTokens: z.number(),
      outputTokens: z.number(),
    }),
  ),
  // Absent from servers older than per-conversation metering.
  conversations: z
    .array(
      z.looseObject({
        channel: z.string().nullable(),
        conversation: z.string().nullable(),
        costUsd: z.number(),
        calls: z.number(),
      }),
    )
    .default([]),
});
const usageSchema = z.looseObject({
  priceTableDate: z.string(),
  today: period.extend({ day: z.string(), raisedUsd: z.number() }),
  month: period.extend({ month: z.string() }),
});

const money = (usd: number) => `$${usd.toFixed(usd > 0 && usd < 0.01 ? 4 : 2)}`;

/** Pure: the usage view as lines for a terminal. */
export function formatUsage(u: z.output<typeof usageSchema>): string[] {
  const line = (name: string, p: z.output<typeof period>) =>
    `${name}: ${money(p.spentUsd)}${p.capUsd === null ? " (no cap)" : ` of ${money(p.capUsd)}`}${p.warning ? "  ⚠ over 80 %" : ""}  (resets ${p.resetsAt})`;
  const out = [line(`today ${u.today.day}`, u.today), line(`month ${u.month.month}`, u.month)];
  if (u.today.raisedUsd > 0) out.push(`today's cap raised by ${money(u.today.raisedUsd)}`);
  for (const [label, p] of [
    ["today", u.today],
    ["this month", u.month],
  ] as const) {
    if (p.models.length > 0) out.push(`per model, ${label}:`);
    for (const m of p.models) {
      out.push(
        `  ${m.model}: ${money(m.costUsd)}, ${m.calls} calls, ${m.inputTokens} in / ${m.outputTokens} out tokens`,
      );
    }
    if (p.conversations.length > 0) out.push(`per conversation, ${label}:`);
    for (const c of p.conversations) {
      const who = c.conversation === null ? "(unattributed)" : `${c.channel} ${c.conversation}`;
      out.push(`  ${who}: ${money(c.costUsd)}, ${c.calls} calls`);
    }
  }
  out.push(`(prices as of ${u.priceTableDate})`);
  return out;
}

export const usageCommand: Command = {
  name: "usage",
  summary:
    "model spend today and this month, per model and conversation, against the budget (--raise: lift today's cap)",
  arity: { min: 0, max: 0 },
  flags: {
    raise: {
      type: "integer",
      value: "<usd>",
      min: 1,
      max: 10_000,
      description: "add this many dollars to today's daily cap (UTC day)",
    },
  },
  async run(ctx, args) {
    const raise = flag.int(args, "raise");
    const api = ctx.api();
    const usage =
      raise === undefined
        ? await api.get("/api/sandbox/usage", usageSchema)
        : (await api.post("/api/sandbox/usage/raise", usageSchema, { usd: raise })).body;
    if (ctx.json) ctx.out(JSON.stringify(usage));
    else for (const l of formatUsage(usage)) ctx.out(l);
    return EXIT.ok;
  },
};

import type { AppContext } from "../app-context";
import { allContexts, listAgents } from "../compose/context";
import { monthStartUtc } from "./cost";
import { type FleetRow, fleetRow } from "./fleet";
import { type FleetCost, type FleetCostEntry, fleetCost } from "./fleet-cost";
import type { FleetSource } from "./fleet-feed";
import { monthCostOf } from "./month-cost";

export interface FleetMember {
  ctx: AppContext;
  isDefault: boolean;
}

/** Every agent of the deployment with its context, in clawrun.json's order. */
export async function fleetMembers(): Promise<FleetMember[]> {
  const [agents, contexts] = await Promise.all([listAgents(), allContexts()]);
  const byName = new Map(contexts.map((c) => [c.agentName, c]));
  return agents.map((a) => {
    const ctx = byName.get(a.name);
    if (!ctx) throw new Error(`agent ${a.name} has no context`);
    return { ctx, isDefault: a.isDefault };
  });
}

export function fleetRows(members: readonly FleetMember[]): Promise<FleetRow[]> {
  return Promise.all(members.map((m) => fleetRow(m.ctx, m.isDefault)));
}

/**
 * The fleet's cost card: each agent's single cost card (monthCostOf: three store reads and one
 * provider snapshot listing per agent), summed. An agent whose figures fail is a line with its
 * error, not a failed card.
 */
export async function fleetCostOf(
  members: readonly FleetMember[],
  now = members[0]?.ctx.clock() ?? Date.now(),
): Promise<FleetCost> {
  const entries = await Promise.all(
    members.map(async (m): Promise<FleetCostEntry> => {
      const base = { name: m.ctx.agentName, isDefault: m.isDefault };
      try {
        return { ...base, summary: await monthCostOf(m.ctx, now) };
      } catch (err) {
        return { ...base, provider: m.ctx.provider.name, error: (err as Error).message };
      }
    }),
  );
  return fleetCost(entries, monthStartUtc(now));
}

/** The fleet feed's reads: one newest-event read per agent per poll, rows when one moved. */
export function fleetSource(
  members: readonly FleetMember[],
  logger: AppContext["logger"],
): FleetSource {
  return {
    markers: () =>
      Promise.all(members.map(async (m) => (await m.ctx.store.events.list(1))[0]?.id ?? "")),
    rows: () => fleetRows(members),
    warn: (message, err) => logger.warn({ err: String(err) }, message),
  };
}

import type { AppContext } from "../app-context";
import { allContexts, listAgents } from "../compose/context";
import { type FleetRow, fleetRow } from "./fleet";
import type { FleetSource } from "./fleet-feed";

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

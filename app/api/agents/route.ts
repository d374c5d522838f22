import { NextResponse } from "next/server";
import { allContexts, listAgents } from "@/src/server/compose/context";
import { fleetRow } from "@/src/server/dashboard/fleet";
import { operatorRoute } from "@/src/server/http/operator-route";

export const dynamic = "force-dynamic";

/** The fleet (docs/several-agents.md): one row per agent, in clawrun.json's order. */
export const GET = operatorRoute("read", async () => {
  const [agents, contexts] = await Promise.all([listAgents(), allContexts()]);
  const byName = new Map(contexts.map((c) => [c.agentName, c]));
  const rows = await Promise.all(
    agents.map((a) => {
      const ctx = byName.get(a.name);
      if (!ctx) throw new Error(`agent ${a.name} has no context`);
      return fleetRow(ctx, a.isDefault);
    }),
  );
  return NextResponse.json({ agents: rows });
});

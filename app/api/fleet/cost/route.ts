import { NextResponse } from "next/server";
import { fleetCostOf, fleetMembers } from "@/src/server/dashboard/fleet-members";
import { operatorRoute } from "@/src/server/http/operator-route";

export const dynamic = "force-dynamic";

/**
 * The fleet's cost card: this month per agent (sandbox and store, model spend) and the total,
 * from each agent's own cost card (docs/api.md). Not under /api/agents: next.config.ts rewrites
 * /api/agents/<name>/… to that agent's routes.
 */
export const GET = operatorRoute("read", async () =>
  NextResponse.json(await fleetCostOf(await fleetMembers())),
);

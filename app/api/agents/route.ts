import { NextResponse } from "next/server";
import { fleetMembers, fleetRows } from "@/src/server/dashboard/fleet-members";
import { operatorRoute } from "@/src/server/http/operator-route";

export const dynamic = "force-dynamic";

/** The fleet (docs/several-agents.md): one row per agent, in clawrun.json's order. */
export const GET = operatorRoute("read", async () =>
  NextResponse.json({ agents: await fleetRows(await fleetMembers()) }),
);

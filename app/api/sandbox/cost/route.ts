import { NextResponse } from "next/server";
import { monthCostOf } from "@/src/server/dashboard/month-cost";
import { operatorRoute } from "@/src/server/http/operator-route";

export const dynamic = "force-dynamic";

/** This month's awake time and what it costs on the configured provider. */
export const GET = operatorRoute("read", async (_req, ctx) =>
  NextResponse.json(await monthCostOf(ctx)),
);

import { NextResponse } from "next/server";
import { buildOverview } from "@/src/server/dashboard/overview";
import { operatorRoute } from "@/src/server/http/operator-route";

export const dynamic = "force-dynamic";

export const GET = operatorRoute("read", async (_req, ctx) =>
  NextResponse.json(await buildOverview(ctx)),
);

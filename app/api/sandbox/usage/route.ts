import { NextResponse } from "next/server";
import { operatorRoute } from "@/src/server/http/operator-route";
import { modelUsageOf } from "@/src/server/operator/model-usage";

export const dynamic = "force-dynamic";

/** Model spend today and this month, per model, against the caps (docs/model-gateway.md). */
export const GET = operatorRoute("read", async (_req, ctx) =>
  NextResponse.json(await modelUsageOf(ctx)),
);

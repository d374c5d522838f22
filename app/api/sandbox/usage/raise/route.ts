import { NextResponse } from "next/server";
import { readJson } from "@/src/server/body/json-body";
import { operatorRoute } from "@/src/server/http/operator-route";
import { raiseBodySchema, raiseTodayCap } from "@/src/server/operator/model-usage";

export const dynamic = "force-dynamic";

/** Raises today's daily model cap by `{ "usd": n }` (docs/model-gateway.md). */
export const POST = operatorRoute("mutation", async (request, ctx) => {
  const body = await readJson(request, raiseBodySchema, {
    maxBytes: 1024,
    what: 'like { "usd": 5 }',
  });
  return NextResponse.json(await raiseTodayCap(ctx, body.usd));
});

import { NextResponse } from "next/server";
import { jsonError } from "@/src/server/http/errors";
import { operatorRoute } from "@/src/server/http/operator-route";

export const dynamic = "force-dynamic";

export const GET = operatorRoute("read", async (request, ctx) => {
  const raw = new URL(request.url).searchParams.get("limit") ?? "100";
  const limit = Number(raw);
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) {
    return jsonError(
      400,
      "invalid_query",
      `limit: expected an integer from 1 to 1000, got "${raw}"`,
    );
  }
  return NextResponse.json({ events: await ctx.store.events.list(limit) });
});

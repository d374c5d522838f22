import { NextResponse } from "next/server";
import { bearerToken, secretEquals } from "@/src/server/auth/constant-time";
import { jsonError } from "@/src/server/http/errors";
import { route } from "@/src/server/http/route";

export const dynamic = "force-dynamic";
// The tick may wake the agent; give it the wake budget.
export const maxDuration = 300;

/** Vercel Cron calls this every minute with `Authorization: Bearer <CRON_SECRET>`. */
export const GET = route(async (request, ctx) => {
  const token = bearerToken(request.headers.get("authorization"));
  if (!token || !secretEquals(token, ctx.secrets.secrets.CRON_SECRET)) {
    return jsonError(401, "unauthorized", "expected Authorization: Bearer <CRON_SECRET>");
  }
  return NextResponse.json(await ctx.manager.tick());
});

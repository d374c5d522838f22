import { NextResponse } from "next/server";
import { bearerToken, secretEquals } from "@/src/server/auth/constant-time";
import { getContext } from "@/src/server/context";
import { errorResponse, jsonError } from "@/src/server/http/errors";

export const dynamic = "force-dynamic";
// The tick may wake the agent; give it the wake budget.
export const maxDuration = 300;

/** Vercel Cron calls this every minute with `Authorization: Bearer <CRON_SECRET>`. */
export async function GET(request: Request) {
  const ctx = await getContext().catch((err: unknown) => err as Error);
  if (ctx instanceof Error) return errorResponse(ctx, null);
  const token = bearerToken(request.headers.get("authorization"));
  if (!token || !secretEquals(token, ctx.secrets.secrets.CRON_SECRET)) {
    return jsonError(401, "unauthorized", "expected Authorization: Bearer <CRON_SECRET>");
  }
  try {
    return NextResponse.json(await ctx.manager.tick());
  } catch (err) {
    return errorResponse(err, ctx.logger);
  }
}

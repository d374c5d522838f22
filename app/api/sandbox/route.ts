import { NextResponse } from "next/server";
import { buildOverview } from "@/src/server/dashboard/overview";
import { operatorRoute } from "@/src/server/http/operator-route";
import { withLazyTick } from "@/src/server/tick/lazy-tick";

export const dynamic = "force-dynamic";
// Work continues after the response (after()): room for it within the Hobby plan's 300 s.
export const maxDuration = 300;

/** The dashboard's view; on Vercel each view may run the lazy reconcile tick afterwards. */
export const GET = operatorRoute("read", async (_req, ctx) =>
  withLazyTick(ctx, NextResponse.json(await buildOverview(ctx))),
);

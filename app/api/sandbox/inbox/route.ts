import { NextResponse } from "next/server";
import { operatorRoute } from "@/src/server/http/operator-route";

export const dynamic = "force-dynamic";

export const GET = operatorRoute("read", async (_req, ctx) => {
  const [pending, dead, counts] = await Promise.all([
    ctx.store.inbox.listPending(100),
    ctx.store.inbox.listDead(100),
    ctx.store.inbox.count(),
  ]);
  return NextResponse.json({ counts, pending, dead });
});

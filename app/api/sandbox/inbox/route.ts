import { NextResponse } from "next/server";
import { operatorRoute } from "@/src/server/http/operator-route";

export const dynamic = "force-dynamic";

/** Queued messages and dead letters, and the replies waiting to go back to the platforms. */
export const GET = operatorRoute("read", async (_req, ctx) => {
  const { inbox, outbox } = ctx.store;
  const [pending, dead, counts, replyPending, replyDead, replyCounts] = await Promise.all([
    inbox.listPending(100),
    inbox.listDead(100),
    inbox.count(),
    outbox.listPending(100),
    outbox.listDead(100),
    outbox.count(),
  ]);
  return NextResponse.json({
    counts,
    pending,
    dead,
    replies: { counts: replyCounts, pending: replyPending, dead: replyDead },
  });
});

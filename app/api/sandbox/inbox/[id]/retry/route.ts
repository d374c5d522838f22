import { NextResponse } from "next/server";
import { jsonError } from "@/src/server/http/errors";
import { operatorRoute } from "@/src/server/http/operator-route";

export const dynamic = "force-dynamic";
// Work continues after the response (after()): room for it within the Hobby plan's 300 s.
export const maxDuration = 300;

/** Moves a dead-letter message back to the inbox and delivers it (waking the agent if needed). */
export const POST = operatorRoute<{ id: string }>("mutation", async (_req, ctx, { id }) => {
  if (!(await ctx.store.inbox.retryDead(id)))
    return jsonError(404, "not_found", `no dead-letter message "${id}"`);
  return {
    response: NextResponse.json({ retried: id }, { status: 202 }),
    followUp: async () => {
      await ctx.manager.wakeAndDeliver({
        reason: "operator retried a dead-letter message",
        trigger: "operator",
      });
    },
  };
});

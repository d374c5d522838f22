import { NextResponse } from "next/server";
import { jsonError } from "@/src/server/http/errors";
import { operatorRoute } from "@/src/server/http/operator-route";

export const dynamic = "force-dynamic";
// Work continues after the response (after()): room for it within the Hobby plan's 300 s.
export const maxDuration = 300;

/** Moves a dead-letter reply back to the outbox and sends it (the agent need not be awake). */
export const POST = operatorRoute<{ id: string }>("mutation", async (_req, ctx, { id }) => {
  if (!(await ctx.store.outbox.retryDead(id)))
    return jsonError(404, "not_found", `no dead-letter reply "${id}"`);
  return {
    response: NextResponse.json({ retried: id }, { status: 202 }),
    followUp: async () => {
      await ctx.manager.sendReplies();
    },
  };
});

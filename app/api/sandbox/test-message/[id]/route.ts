import { NextResponse } from "next/server";
import { jsonError } from "@/src/server/http/errors";
import { operatorRoute } from "@/src/server/http/operator-route";
import { readTestReply, TEST_MESSAGE_ID } from "@/src/server/operator/test-reply";

export const dynamic = "force-dynamic";

/** How far a queued test message got and the agent's reply (the dashboard polls it). */
export const GET = operatorRoute<{ id: string }>("read", async (_req, ctx, { id }) => {
  if (!TEST_MESSAGE_ID.test(id))
    return jsonError(400, "invalid_id", "expected the id of a dashboard test message (test-…)");
  return NextResponse.json(await readTestReply(ctx, id));
});

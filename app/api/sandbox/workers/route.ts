import { NextResponse } from "next/server";
import { readJson } from "@/src/server/body/json-body";
import { operatorRoute } from "@/src/server/http/operator-route";
import { runWorker, workerRequestSchema } from "@/src/server/operator/workers";

export const dynamic = "force-dynamic";
// A worker command runs at most 240 s, inside the 300 s a function may take on every plan.
export const maxDuration = 300;

/** Runs one command in a fresh worker sandbox from the newest (or a chosen) snapshot. */
export const POST = operatorRoute("mutation", async (request, ctx) => {
  const body = await readJson(request, workerRequestSchema, {
    maxBytes: 64 * 1024,
    what: '{ "command", "args"?, "timeoutSeconds"?, "snapshotId"? }',
  });
  return NextResponse.json(await runWorker(ctx, body));
});

import { readJson } from "@/src/server/body/json-body";
import { operatorRoute } from "@/src/server/http/operator-route";
import { startAction, startBodySchema } from "@/src/server/operator/actions";

export const dynamic = "force-dynamic";
export const maxDuration = 300;

/** Start / wake; `{ "fresh": true }` starts without restoring; `{ "snapshotId" }` wakes from that snapshot. */
export const POST = operatorRoute("mutation", async (request, ctx) => {
  const body = await readJson(request, startBodySchema, {
    maxBytes: 4 * 1024,
    what: 'like { "fresh": true } or empty',
    emptyAs: {},
  });
  return startAction(ctx, body);
});

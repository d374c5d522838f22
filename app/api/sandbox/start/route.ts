import { jsonError } from "@/src/server/http/errors";
import { operatorRoute } from "@/src/server/http/operator-route";
import { startAction, startBodySchema } from "@/src/server/operator/actions";

export const dynamic = "force-dynamic";
export const maxDuration = 300;

/** Start / wake; `{ "fresh": true }` starts without restoring; `{ "snapshotId" }` wakes from that snapshot. */
export const POST = operatorRoute("mutation", async (request, ctx) => {
  const text = await request.text();
  let json: unknown = {};
  try {
    json = text ? JSON.parse(text) : {};
  } catch {
    return jsonError(400, "invalid_json", 'body: expected JSON like { "fresh": true } or empty');
  }
  const body = startBodySchema.safeParse(json);
  if (!body.success) {
    const issue = body.error.issues[0];
    return jsonError(400, "invalid_body", `${issue?.path.join(".") || "body"}: ${issue?.message}`);
  }
  return startAction(ctx, body.data);
});

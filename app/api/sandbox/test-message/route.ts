import { readJson } from "@/src/server/body/json-body";
import { operatorRoute } from "@/src/server/http/operator-route";
import { sendTestMessage, testMessageBodySchema } from "@/src/server/operator/test-message";

export const dynamic = "force-dynamic";
export const maxDuration = 300;

/** Sends a signed test message through the generic webhook; answers as the webhook does. */
export const POST = operatorRoute("mutation", async (request, ctx) => {
  const body = await readJson(request, testMessageBodySchema, {
    maxBytes: 4 * 1024,
    what: 'like { "text": "hello" } or empty',
    emptyAs: {},
  });
  return sendTestMessage(ctx, body);
});

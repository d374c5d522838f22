import { route } from "@/src/server/http/route";
import { handleWebhookRequest } from "@/src/server/http/webhook-handler";
import { withLazyTick } from "@/src/server/tick/lazy-tick";

export const dynamic = "force-dynamic";
// A message may wake the agent after the platform has its answer: the wake budget (Hobby's limit).
export const maxDuration = 300;

/** Platform events (and the generic webhook). */
export const POST = route<{ channel: string }>(async (request, ctx, { channel }) =>
  withLazyTick(ctx, await handleWebhookRequest(request, channel, ctx)),
);

/** Platform verification (e.g. WhatsApp's hub challenge). */
export const GET = POST;

import { route } from "@/src/server/http/route";
import { handleWebhookRequest } from "@/src/server/http/webhook-handler";

export const dynamic = "force-dynamic";

/** Platform events (and the generic webhook). */
export const POST = route<{ channel: string }>((request, ctx, { channel }) =>
  handleWebhookRequest(request, channel, ctx),
);

/** Platform verification (e.g. WhatsApp's hub challenge). */
export const GET = POST;

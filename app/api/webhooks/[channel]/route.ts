import { route } from "@/src/server/http/route";
import { handleWebhookRequest } from "@/src/server/http/webhook-handler";

export const dynamic = "force-dynamic";

export const POST = route<{ channel: string }>((request, ctx, { channel }) =>
  handleWebhookRequest(request, channel, ctx),
);

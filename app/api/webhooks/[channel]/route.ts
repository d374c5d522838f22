import { after } from "next/server";
import { getContext } from "@/src/server/context";
import { errorResponse } from "@/src/server/http/errors";
import { handleWebhookRequest } from "@/src/server/http/webhook-handler";

export const dynamic = "force-dynamic";

export async function POST(request: Request, { params }: { params: Promise<{ channel: string }> }) {
  const ctx = await getContext().catch((err: unknown) => err as Error);
  if (ctx instanceof Error) return errorResponse(ctx, null);
  const { channel } = await params;
  const { response, followUp } = await handleWebhookRequest(request, channel, ctx);
  if (followUp)
    after(() =>
      followUp().catch((err: unknown) =>
        ctx.logger.error({ err: String(err) }, "webhook wake failed"),
      ),
    );
  return response;
}

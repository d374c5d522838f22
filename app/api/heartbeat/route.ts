import { after } from "next/server";
import { getContext } from "@/src/server/context";
import { errorResponse } from "@/src/server/http/errors";
import { handleHeartbeatRequest } from "@/src/server/http/heartbeat-handler";

export const dynamic = "force-dynamic";

export async function POST(request: Request) {
  const ctx = await getContext().catch((err: unknown) => err as Error);
  if (ctx instanceof Error) return errorResponse(ctx, null);
  const { response, followUp } = await handleHeartbeatRequest(request, ctx);
  if (followUp)
    after(() =>
      followUp().catch((err: unknown) =>
        ctx.logger.error({ err: String(err) }, "heartbeat follow-up failed"),
      ),
    );
  return response;
}

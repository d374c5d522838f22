import { NextResponse } from "next/server";
import { registerChannel } from "@/src/server/dashboard/channel-cards";
import { jsonError } from "@/src/server/http/errors";
import { operatorRoute } from "@/src/server/http/operator-route";

export const dynamic = "force-dynamic";

/** Points the channel's platform at this deployment (Telegram setWebhook, Discord commands). */
export const POST = operatorRoute<{ name: string }>("mutation", async (_req, ctx, { name }) => {
  const result = await registerChannel(ctx, name);
  if (!result) {
    const configured = [...ctx.channels.keys()].join(", ") || "(none)";
    return jsonError(404, "unknown_channel", `no channel "${name}"; configured: ${configured}`);
  }
  return NextResponse.json(result, { status: result.ok ? 200 : 502 });
});

import { NextResponse } from "next/server";
import { ChannelRequestError } from "../channels/types";
import type { AppContext } from "../context";
import { errorResponse, jsonError } from "./errors";
import type { Handled } from "./heartbeat-handler";
import { readBodyLimited } from "./read-body";

/**
 * POST /api/webhooks/<channel>. Invariant 3: the platform gets its acknowledgement only
 * after the message is durably queued (202) or delivered (200). Every message goes through
 * the inbox first, which also dedupes platform retries by message id.
 */
export async function handleWebhookRequest(
  request: Request,
  channelName: string,
  ctx: AppContext,
): Promise<Handled> {
  const done = (response: Response): Handled => ({ response, followUp: null });
  const channel = ctx.channels.get(channelName);
  if (!channel) {
    return done(
      jsonError(
        404,
        "unknown_channel",
        `no channel "${channelName}"; configured: ${[...ctx.channels.keys()].join(", ")}`,
      ),
    );
  }
  try {
    const rawBody = await readBodyLimited(request, channel.maxBodyBytes);
    const now = Date.now();
    const msg = channel.receive({ rawBody, headers: request.headers, now });
    const { duplicate } = await ctx.store.enqueue({
      ...msg,
      channel: channel.name,
      receivedAt: now,
    });
    if (duplicate) return done(NextResponse.json({ status: "duplicate", id: msg.id }));

    const manager = ctx.manager;
    const state = await manager.getState();
    if (state.value.status === "running") {
      const drained = await manager.drain({ inlineId: msg.id });
      if (drained.inline?.ok) {
        const { reply, details } = drained.inline.result;
        return done(NextResponse.json({ status: "delivered", id: msg.id, reply, details }));
      }
    }
    const wake = async () => {
      await manager.wakeAndDeliver({ reason: `message from ${channel.name}`, trigger: "message" });
    };
    return {
      response: NextResponse.json({ status: "queued", id: msg.id }, { status: 202 }),
      followUp: wake,
    };
  } catch (err) {
    if (err instanceof ChannelRequestError)
      return done(jsonError(err.status, err.code, err.message));
    return done(errorResponse(err, ctx.logger));
  }
}

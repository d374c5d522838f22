import { NextResponse } from "next/server";
import type { ChannelResponse, Inbound } from "../channels/types";
import type { AppContext } from "../context";
import { jsonError } from "./errors";
import { readBodyLimited } from "./read-body";
import type { RouteResult } from "./route";

/**
 * GET and POST /api/webhooks/<channel>. The platform gets its acknowledgement only after the
 * message is durably queued or delivered (docs/architecture.md, "Webhook → inbox → wake →
 * delivery"). Every message goes through the inbox first, which also dedupes platform
 * retries by message id. Errors (bad signature, bad body, store down) are thrown and mapped
 * by the route wrapper; nothing is stored for them.
 */
export async function handleWebhookRequest(
  request: Request,
  channelName: string,
  ctx: AppContext,
): Promise<RouteResult> {
  const channel = ctx.channels.get(channelName);
  if (!channel) {
    const configured = [...ctx.channels.keys()].join(", ") || "(none)";
    return jsonError(
      404,
      "unknown_channel",
      `no channel "${channelName}"; configured: ${configured}`,
    );
  }
  const method = request.method === "GET" ? "GET" : "POST";
  const rawBody =
    method === "POST" ? await readBodyLimited(request, channel.maxBodyBytes) : Buffer.alloc(0);
  const now = ctx.clock();
  const inbound: Inbound = await channel.handle({
    method,
    url: new URL(request.url),
    headers: request.headers,
    rawBody,
    now,
  });
  if (inbound.kind === "respond") return toResponse(inbound.response);
  if (inbound.kind === "ignore") {
    return { response: toResponse(inbound.response), followUp: inbound.after ?? null };
  }

  const msg = inbound.message;
  const stored = await ctx.store.inbox.enqueue({ ...msg, channel: channel.name, receivedAt: now });
  if (stored.duplicate) return toResponse(channel.acknowledge({ kind: "duplicate", id: msg.id }));

  const manager = ctx.manager;
  if (channel.replyInline && (await manager.getState()).value.status === "running") {
    const drained = await manager.drain({ inlineId: msg.id });
    if (drained.inline?.ok) {
      const { reply, details } = drained.inline.result;
      return toResponse(channel.acknowledge({ kind: "delivered", id: msg.id, reply, details }));
    }
  }
  const target = { messageId: msg.id, conversation: msg.conversation, meta: msg.meta };
  return {
    response: toResponse(channel.acknowledge({ kind: "queued", id: msg.id })),
    followUp: async () => {
      // A store that cannot answer here will fail the wake too; assume a wake is coming.
      const waking = channel.whileWaking
        ? await manager.getState().then(
            (s) => s.value.status !== "running",
            () => true,
          )
        : true;
      const waiting = channel.whileWaking?.(target, { waking });
      try {
        await manager.wakeAndDeliver({
          reason: `message from ${channel.name}`,
          trigger: "message",
        });
      } finally {
        await waiting?.stop();
      }
    },
  };
}

function toResponse(r: ChannelResponse): Response {
  const headers = { "cache-control": "no-store", ...r.headers };
  if (typeof r.body === "string") return new Response(r.body, { status: r.status, headers });
  if (r.body === undefined) return new Response(null, { status: r.status, headers });
  return NextResponse.json(r.body, { status: r.status, headers });
}

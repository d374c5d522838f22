import { NextResponse } from "next/server";
import type {
  Channel,
  ChannelMessage,
  ChannelResponse,
  Inbound,
  ReplyTarget,
} from "../channels/types";
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

  if (inbound.kind === "batch") return storeBatch(ctx, channel, inbound, now);

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
  return {
    response: toResponse(channel.acknowledge({ kind: "queued", id: msg.id })),
    followUp: () => wakeWhileWaiting(ctx, channel, [replyTarget(msg)]),
  };
}

/** Stores a batch in order; acknowledged as a duplicate only when every message was seen before. */
async function storeBatch(
  ctx: AppContext,
  channel: Channel,
  batch: Extract<Inbound, { kind: "batch" }>,
  now: number,
): Promise<RouteResult> {
  const fresh: ReplyTarget[] = [];
  for (const msg of batch.messages) {
    const stored = await ctx.store.inbox.enqueue({
      ...msg,
      channel: channel.name,
      receivedAt: now,
    });
    if (!stored.duplicate) fresh.push(replyTarget(msg));
  }
  const id = fresh[0]?.messageId ?? batch.messages[0]?.id ?? "";
  const allSeen = fresh.length === 0 && batch.messages.length > 0;
  return {
    response: toResponse(channel.acknowledge({ kind: allSeen ? "duplicate" : "queued", id })),
    followUp: async () => {
      await batch.after?.();
      if (fresh.length > 0) await wakeWhileWaiting(ctx, channel, fresh);
    },
  };
}

/** Wakes the agent and delivers, showing the channel's waiting indicator meanwhile. */
async function wakeWhileWaiting(
  ctx: AppContext,
  channel: Channel,
  targets: ReplyTarget[],
): Promise<void> {
  // A store that cannot answer here will fail the wake too; assume a wake is coming.
  const waking = channel.whileWaking
    ? await ctx.manager.getState().then(
        (s) => s.value.status !== "running",
        () => true,
      )
    : true;
  const waiting = channel.whileWaking
    ? targets.map((t) => channel.whileWaking?.(t, { waking }))
    : [];
  try {
    await ctx.manager.wakeAndDeliver({
      reason: `message from ${channel.name}`,
      trigger: "message",
    });
  } finally {
    await Promise.all(waiting.map((w) => w?.stop()));
  }
}

function replyTarget(msg: ChannelMessage): ReplyTarget {
  return { messageId: msg.id, conversation: msg.conversation, meta: msg.meta };
}

function toResponse(r: ChannelResponse): Response {
  const headers = { "cache-control": "no-store", ...r.headers };
  if (typeof r.body === "string") return new Response(r.body, { status: r.status, headers });
  if (r.body === undefined) return new Response(null, { status: r.status, headers });
  return NextResponse.json(r.body, { status: r.status, headers });
}

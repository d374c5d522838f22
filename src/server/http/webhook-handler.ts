import { NextResponse } from "next/server";
import type { AppContext } from "../app-context";
import { readBodyLimited } from "../body/read-body";
import type {
  Channel,
  ChannelMessage,
  ChannelResponse,
  Inbound,
  ReplyTarget,
} from "../channels/types";
import type { DrainResult } from "../inbox/drain";
import { jsonError } from "./errors";
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
  ctx: Pick<AppContext, "channels" | "clock" | "logger" | "manager" | "store">,
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
  // Until the insert succeeds a store fault is a 503: nothing was stored, the sender retries.
  const stored = await ctx.store.inbox.enqueue({ ...msg, channel: channel.name, receivedAt: now });
  if (stored.duplicate) return toResponse(channel.acknowledge({ kind: "duplicate", id: msg.id }));

  // Stored: from here on, whatever fails, the answer is 202 and the inbox/outbox finish the
  // work (a 503 would make the sender resend a message we have, and its resend reads "duplicate").
  const inline = channel.replyInline ? await deliverInline(ctx, msg.id) : null;
  if (inline?.inline?.ok) {
    const { reply, details } = inline.inline.result;
    return toResponse(channel.acknowledge({ kind: "delivered", id: msg.id, reply, details }));
  }
  return {
    response: toResponse(channel.acknowledge({ kind: "queued", id: msg.id })),
    followUp: async () => {
      // Delivered but not recorded: its reply goes out through the outbox once the store is back.
      if (inline && inline.unsettled.length > 0)
        await ctx.manager.finishDelivered(inline.unsettled);
      await wakeWhileWaiting(ctx, channel, [replyTarget(msg)]);
    },
  };
}

/**
 * Delivers a stored message while the sender waits, if the agent runs. A store fault is
 * logged and answered as queued (null), never thrown: the message is already stored.
 */
async function deliverInline(
  ctx: Pick<AppContext, "logger" | "manager">,
  id: string,
): Promise<DrainResult | null> {
  try {
    if ((await ctx.manager.getState()).value.status !== "running") return null;
    return await ctx.manager.drain({ inlineId: id });
  } catch (err) {
    ctx.logger.warn(
      { messageId: id, err: err instanceof Error ? err.message : String(err) },
      "message stored; delivering it failed, answered 202 and left to the inbox",
    );
    return null;
  }
}

/** Stores a batch in order; acknowledged as a duplicate only when every message was seen before. */
async function storeBatch(
  ctx: Pick<AppContext, "manager" | "store">,
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
  ctx: Pick<AppContext, "manager">,
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

import type { z } from "zod";
import { type ChannelKv, ChannelSendError, type ReplyTarget, type SendResult } from "../types";
import { sendInParts } from "./send-in-parts";
import { splitReply } from "./split-reply";

export interface TextReplyOptions {
  text: string;
  /** The platform's longest message, in characters. */
  limit: number;
  to: ReplyTarget;
  kv: ChannelKv;
  maxInlineWaitMs: number;
  signal: AbortSignal;
  /** Sends one part (the first answers the person's message). */
  send(part: string, index: number): Promise<void>;
  /** Who got the reply, in words ("Telegram chat 42"), asked once every part went out. */
  recipient(): string;
}

/**
 * A chat reply sent as plain text: split at the platform's limit, sent in order and resumed
 * after a failure (sendInParts), and said in the same words on every platform.
 */
export async function sendTextReply(o: TextReplyOptions): Promise<SendResult> {
  const parts = splitReply(o.text, o.limit);
  if (parts.length === 0) return { sent: false, detail: "the reply was empty; nothing sent" };
  await sendInParts({
    parts,
    kv: o.kv,
    progressKey: `reply:${o.to.messageId}`,
    maxInlineWaitMs: o.maxInlineWaitMs,
    signal: o.signal,
    send: o.send,
  });
  return {
    sent: true,
    detail: `sent ${parts.length} message${parts.length > 1 ? "s" : ""} to ${o.recipient()}`,
  };
}

/**
 * What the channel stored with a message to answer it; anything else can never be answered,
 * so it is a permanent failure (no retry).
 */
export function replyMetaOf<T>(schema: z.ZodType<T>, to: ReplyTarget, what: string): T {
  const parsed = schema.safeParse(to.meta);
  if (!parsed.success)
    throw new ChannelSendError(`message ${to.messageId}: stored meta is not ${what}`, {
      permanent: true,
    });
  return parsed.data;
}

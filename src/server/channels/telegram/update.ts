import { z } from "zod";
import { joinPath } from "../../../config/format-issues";
import type { AttachmentMode } from "../attachments";
import { ChannelRequestError } from "../types";
import { describeAttachment } from "./attachments";
import { type TelegramMessage, updateSchema } from "./update-schema";

export type { TelegramMessage };
/** What ClawRun keeps with a stored Telegram message to answer it. */
export const telegramMetaSchema = z.object({
  chatId: z.number().int(),
  threadId: z.number().int().optional(),
  replyTo: z.number().int(),
});
export type TelegramMeta = z.output<typeof telegramMetaSchema>;

/** What to do with a message that is not plain text (channels/attachments.ts). */
export type AttachmentPolicy = AttachmentMode;

export type ParsedUpdate =
  | {
      kind: "message";
      id: string;
      conversation: string;
      text: string;
      meta: TelegramMeta;
    }
  | { kind: "ignore"; reason: string }
  /** A message the agent cannot read: tell the sender (`what` names the kind). */
  | { kind: "refuse"; reason: string; what: string; meta: TelegramMeta };

export interface ParseOptions {
  attachments: AttachmentPolicy;
  /** Only these chats reach the agent (undefined: every chat). */
  allowedChats?: readonly string[];
}

/** Dedupe key of an update: Telegram repeats the same update_id when it retries. */
export const telegramMessageId = (updateId: number) => `telegram:${updateId}`;

/** A chat, or a forum topic inside it (replies and ordering follow the topic). */
export function telegramConversation(meta: Pick<TelegramMeta, "chatId" | "threadId">): string {
  return meta.threadId === undefined
    ? `telegram:${meta.chatId}`
    : `telegram:${meta.chatId}:${meta.threadId}`;
}

/**
 * Decides what an update is, from its raw bytes. Only `message` updates reach the agent
 * (setWebhook asks for just those); everything else Telegram may still send is ignored.
 */
export function parseUpdate(raw: Buffer, o: ParseOptions): ParsedUpdate {
  let json: unknown;
  try {
    json = JSON.parse(raw.toString("utf8"));
  } catch {
    throw new ChannelRequestError(400, "invalid_json", "body: expected a JSON Telegram Update");
  }
  const parsed = updateSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? joinPath(issue.path) : "body";
    throw new ChannelRequestError(
      400,
      "invalid_update",
      `${where}: ${issue?.message ?? "invalid"} (expected a Telegram Update)`,
    );
  }
  const update = parsed.data;
  const m = update.message;
  if (!m) {
    const kinds = Object.keys(update).filter((k) => k !== "update_id");
    return { kind: "ignore", reason: `not a new message (${kinds.join(", ") || "empty update"})` };
  }
  if (m.from?.is_bot) return { kind: "ignore", reason: "sent by a bot" };
  if (o.allowedChats && !o.allowedChats.includes(String(m.chat.id)))
    return { kind: "ignore", reason: `chat ${m.chat.id} is not in allowedChats` };

  const meta: TelegramMeta = {
    chatId: m.chat.id,
    // Only forum topics are threads; in other chats message_thread_id marks a reply chain.
    ...(m.is_topic_message && m.message_thread_id !== undefined
      ? { threadId: m.message_thread_id }
      : {}),
    replyTo: m.message_id,
  };
  const base = {
    id: telegramMessageId(update.update_id),
    conversation: telegramConversation(meta),
    meta,
  };
  if (m.text !== undefined) return { kind: "message", ...base, text: m.text };

  const attachment = describeAttachment(m);
  if (!attachment) return { kind: "ignore", reason: "a service message (no text, no attachment)" };
  if (o.attachments === "refuse")
    return { kind: "refuse", reason: `a ${attachment.kind}`, what: attachment.kind, meta };
  const caption = m.caption ? `\n${m.caption}` : "";
  return { kind: "message", ...base, text: `[${attachment.description}]${caption}` };
}

import { refusalOf } from "../attachments";
import { type ChatChannelOptions, typingIndicators } from "../shared/chat-channel-options";
import { requirePost } from "../shared/signed-json-post";
import { replyMetaOf, sendTextReply } from "../shared/text-reply";
import type { WaitingIndicators } from "../shared/waiting-indicators";
import type {
  AckOutcome,
  Channel,
  ChannelRequest,
  ChannelResponse,
  ChannelStatus,
  Inbound,
  ReplyTarget,
  SendResult,
  WaitingIndicator,
} from "../types";
import { checkSecretToken } from "./secret-token";
import { toSendError } from "./send-error";
import { type TelegramApi, TelegramApiError } from "./telegram-api";
import {
  type AttachmentPolicy,
  parseUpdate,
  type TelegramMeta,
  telegramMetaSchema,
} from "./update";

/** sendMessage takes 1-4096 characters (Bot API docs). */
export const TELEGRAM_TEXT_LIMIT = 4096;
/** A chat action shows for 5 seconds or less (Bot API docs, sendChatAction): repeat sooner. */
const TYPING_EVERY_MS = 4_000;
/** The only update type ClawRun handles; setWebhook asks Telegram for nothing else. */
export const ALLOWED_UPDATES = ["message"];

export interface TelegramChannelOptions extends ChatChannelOptions {
  api: TelegramApi;
  secretToken: string;
  webhookUrl: string;
  attachments: AttachmentPolicy;
  allowedChats?: readonly string[];
}

/**
 * Telegram (Bot API, webhook mode). Updates arrive with the secret header ClawRun gave
 * setWebhook; each `message` update is stored under its update_id and answered 200 at once.
 * Replies go out with sendMessage, split at 4,096 characters; "typing…" shows while waiting.
 */
export class TelegramChannel implements Channel {
  readonly name = "telegram";
  // Updates are small; anything near this is not Telegram.
  readonly maxBodyBytes = 1024 * 1024;
  readonly replyInline = false;
  private readonly indicators: WaitingIndicators;

  constructor(private readonly o: TelegramChannelOptions) {
    this.indicators = typingIndicators(o, (to) => this.typing(to), TYPING_EVERY_MS);
  }

  async handle(req: ChannelRequest): Promise<Inbound> {
    requirePost(req, "Telegram webhooks are POST");
    checkSecretToken(req.headers, this.o.secretToken);
    const u = parseUpdate(req.rawBody, {
      attachments: this.o.attachments,
      allowedChats: this.o.allowedChats,
    });
    switch (u.kind) {
      case "message":
        return {
          kind: "message",
          message: { id: u.id, conversation: u.conversation, text: u.text, meta: u.meta },
        };
      case "ignore":
        return {
          kind: "ignore",
          reason: u.reason,
          response: { status: 200, body: { status: "ignored" } },
        };
      case "refuse":
        // Telegram performs a method given in the webhook's answer (Bot API docs, "Making
        // requests when getting updates"): the refusal costs no extra call and needs no follow-up.
        return {
          kind: "ignore",
          reason: u.reason,
          response: {
            status: 200,
            body: { method: "sendMessage", ...this.refusal(u.meta, u.what) },
          },
        };
    }
  }

  acknowledge(outcome: AckOutcome): ChannelResponse {
    // The body is informational: without a "method" field Telegram ignores it.
    return { status: 200, body: { status: outcome.kind } };
  }

  async send(to: ReplyTarget, text: string, signal: AbortSignal): Promise<SendResult> {
    const meta = this.meta(to);
    await this.indicators.replied(to);
    let chatId = meta.chatId;
    return sendTextReply({
      text,
      limit: TELEGRAM_TEXT_LIMIT,
      to,
      kv: this.o.kv,
      maxInlineWaitMs: this.o.maxInlineWaitMs ?? 5_000,
      signal,
      send: async (part, i) => {
        const params = {
          text: part,
          ...(meta.threadId !== undefined ? { message_thread_id: meta.threadId } : {}),
          ...(i === 0
            ? { reply_parameters: { message_id: meta.replyTo, allow_sending_without_reply: true } }
            : {}),
        };
        try {
          await this.o.api.sendMessage({ chat_id: chatId, ...params }, signal);
        } catch (err) {
          // A group that became a supergroup has a new id; Telegram names it once.
          if (!(err instanceof TelegramApiError) || err.migrateToChatId === null)
            throw toSendError(err);
          chatId = err.migrateToChatId;
          await this.o.api
            .sendMessage({ chat_id: chatId, ...params }, signal)
            .catch((e: unknown) => {
              throw toSendError(e);
            });
        }
      },
      recipient: () => `Telegram chat ${chatId}`,
    });
  }

  whileWaking(to: ReplyTarget): WaitingIndicator {
    return this.indicators.start(to);
  }

  async register(signal: AbortSignal): Promise<{ ok: boolean; detail: string }> {
    try {
      await this.o.api.setWebhook(
        {
          url: this.o.webhookUrl,
          secret_token: this.o.secretToken,
          allowed_updates: ALLOWED_UPDATES,
        },
        signal,
      );
      return { ok: true, detail: `Telegram sends updates to ${this.o.webhookUrl}` };
    } catch (err) {
      return { ok: false, detail: `setWebhook failed: ${(err as Error).message}` };
    }
  }

  async status(signal: AbortSignal): Promise<ChannelStatus> {
    const base = { missingEnv: [], webhookUrl: this.o.webhookUrl };
    try {
      const info = await this.o.api.getWebhookInfo(signal);
      const registered = info.url === this.o.webhookUrl;
      const lastError = info.last_error_message
        ? `; last delivery error: ${info.last_error_message}`
        : "";
      return {
        ...base,
        webhookRegistered: registered,
        detail: registered
          ? `webhook set, ${info.pending_update_count} update(s) pending${lastError}`
          : info.url
            ? `Telegram sends updates to another URL (${info.url}); register to point it here`
            : "no webhook set; register to point Telegram here",
      };
    } catch (err) {
      return {
        ...base,
        webhookRegistered: false,
        detail: `could not ask Telegram: ${(err as Error).message}`,
      };
    }
  }

  private meta(to: ReplyTarget): TelegramMeta {
    return replyMetaOf(telegramMetaSchema, to, "a Telegram chat");
  }

  private refusal(meta: TelegramMeta, what: string) {
    return {
      chat_id: meta.chatId,
      ...(meta.threadId !== undefined ? { message_thread_id: meta.threadId } : {}),
      reply_parameters: { message_id: meta.replyTo, allow_sending_without_reply: true },
      text: refusalOf(`this ${what}`),
    };
  }

  private async typing(to: ReplyTarget): Promise<void> {
    const meta = this.meta(to);
    await this.o.api.sendChatAction(
      {
        chat_id: meta.chatId,
        action: "typing",
        ...(meta.threadId !== undefined ? { message_thread_id: meta.threadId } : {}),
      },
      AbortSignal.timeout(5_000),
    );
  }
}

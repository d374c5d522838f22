import { refusalOf } from "../attachments";
import { type ChatChannelOptions, typingIndicators } from "../shared/chat-channel-options";
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
import type { GraphApi } from "./graph-api";
import { toSendError } from "./send-error";
import { checkHubSignature } from "./signature";
import { answerVerification } from "./subscription";
import {
  type AttachmentPolicy,
  parsePayload,
  type Refusal,
  type WhatsappMeta,
  wamidOf,
  whatsappMetaSchema,
} from "./webhook-payload";

/** A text message body takes up to 4,096 characters (Cloud API docs, "Text messages"). */
export const WHATSAPP_TEXT_LIMIT = 4096;
/** The typing indicator ends after 25 s (Cloud API docs, "Typing indicators"): repeat sooner. */
const TYPING_EVERY_MS = 20_000;

export interface WhatsappChannelOptions extends ChatChannelOptions {
  api: GraphApi;
  appSecret: string;
  verifyToken: string;
  webhookUrl: string;
  attachments: AttachmentPolicy;
  phoneNumberId?: string;
  allowedSenders?: readonly string[];
  /** For register() and status(): the app whose webhook subscription ClawRun manages. */
  appId?: string;
  /** For register(): the business account the app must be subscribed to. */
  businessAccountId?: string;
}

/**
 * WhatsApp (Cloud API). Meta verifies the endpoint with a GET hub challenge and signs each
 * POST with the app secret; a POST may carry several messages and status callbacks. Each
 * message is stored under its wamid and answered 200 once all are stored; replies go to
 * `/<phone-number-id>/messages`, split at 4,096 characters; "typing…" shows while waiting.
 */
export class WhatsappChannel implements Channel {
  readonly name = "whatsapp";
  readonly maxBodyBytes = 1024 * 1024;
  readonly replyInline = false;
  private readonly indicators: WaitingIndicators;

  constructor(private readonly o: WhatsappChannelOptions) {
    this.indicators = typingIndicators(
      o,
      (to) =>
        this.o.api.typing(
          { phoneNumberId: this.meta(to).phoneNumberId, wamid: wamidOf(to.messageId) },
          AbortSignal.timeout(5_000),
        ),
      TYPING_EVERY_MS,
    );
  }

  async handle(req: ChannelRequest): Promise<Inbound> {
    if (req.method === "GET")
      return {
        kind: "respond",
        response: answerVerification(req.url.searchParams, this.o.verifyToken),
      };
    checkHubSignature(req.headers, req.rawBody, this.o.appSecret);
    const p = parsePayload(req.rawBody, {
      attachments: this.o.attachments,
      phoneNumberId: this.o.phoneNumberId,
      allowedSenders: this.o.allowedSenders,
    });
    const after = p.refusals.length > 0 ? () => this.refuse(p.refusals) : undefined;
    if (p.messages.length === 0) {
      const reason =
        [...p.refusals.map((r) => `a ${r.what}`), ...p.ignored].join("; ") || "nothing in it";
      return { kind: "ignore", reason, response: { status: 200 }, ...(after ? { after } : {}) };
    }
    return { kind: "batch", messages: p.messages, ...(after ? { after } : {}) };
  }

  acknowledge(_outcome: AckOutcome): ChannelResponse {
    // Meta only needs a 200; anything else is retried.
    return { status: 200 };
  }

  async send(to: ReplyTarget, text: string, signal: AbortSignal): Promise<SendResult> {
    const meta = this.meta(to);
    await this.indicators.replied(to);
    return sendTextReply({
      text,
      limit: WHATSAPP_TEXT_LIMIT,
      to,
      kv: this.o.kv,
      maxInlineWaitMs: this.o.maxInlineWaitMs ?? 6_000,
      signal,
      send: async (part) => {
        await this.o.api
          .sendText({ phoneNumberId: meta.phoneNumberId, to: meta.to, body: part }, signal)
          .catch((err: unknown) => {
            throw toSendError(err);
          });
      },
      recipient: () => `WhatsApp user ${meta.to}`,
    });
  }

  whileWaking(to: ReplyTarget): WaitingIndicator {
    return this.indicators.start(to);
  }

  async register(signal: AbortSignal): Promise<{ ok: boolean; detail: string }> {
    const { appId, businessAccountId } = this.o;
    if (!appId)
      return {
        ok: false,
        detail: `set channels.whatsapp.appId to let ClawRun register ${this.o.webhookUrl}, or enter it in the App Dashboard (WhatsApp → Configuration)`,
      };
    try {
      await this.o.api.subscribeApp(
        {
          appId,
          appSecret: this.o.appSecret,
          callbackUrl: this.o.webhookUrl,
          verifyToken: this.o.verifyToken,
        },
        signal,
      );
      if (businessAccountId) await this.o.api.subscribeWaba(businessAccountId, signal);
      return {
        ok: true,
        detail: `Meta sends WhatsApp messages to ${this.o.webhookUrl}${businessAccountId ? ` for business account ${businessAccountId}` : ""}`,
      };
    } catch (err) {
      return { ok: false, detail: `registration failed: ${(err as Error).message}` };
    }
  }

  async status(signal: AbortSignal): Promise<ChannelStatus> {
    const base = { missingEnv: [], webhookUrl: this.o.webhookUrl };
    const { appId } = this.o;
    if (!appId)
      return {
        ...base,
        webhookRegistered: null,
        detail:
          "set channels.whatsapp.appId to let ClawRun check the webhook; until then it is set in the App Dashboard",
      };
    try {
      const subs = await this.o.api.appSubscriptions(
        { appId, appSecret: this.o.appSecret },
        signal,
      );
      const sub = subs.find((s) => s.object === "whatsapp_business_account");
      const fields = (sub?.fields ?? []).map((f) => (typeof f === "string" ? f : f.name));
      const registered =
        sub?.callback_url === this.o.webhookUrl &&
        sub.active !== false &&
        fields.includes("messages");
      return {
        ...base,
        webhookRegistered: registered,
        detail: registered
          ? "Meta sends the messages field here"
          : sub?.callback_url
            ? `the app's webhook points elsewhere (${sub.callback_url}) or lacks the messages field; register to point it here`
            : "no WhatsApp webhook on the app; register to point it here",
      };
    } catch (err) {
      return {
        ...base,
        webhookRegistered: false,
        detail: `could not ask Meta: ${(err as Error).message}`,
      };
    }
  }

  private meta(to: ReplyTarget): WhatsappMeta {
    return replyMetaOf(whatsappMetaSchema, to, "a WhatsApp chat");
  }

  /** Tells each sender once: Meta may redeliver a webhook it already got a 200 for. */
  private async refuse(refusals: Refusal[]): Promise<void> {
    for (const r of refusals) {
      const key = `refused:${r.wamid}`;
      if (await this.o.kv.get(key)) continue;
      await this.o.kv.set(key, "1", 7 * 24 * 60 * 60_000);
      await this.o.api
        .sendText(
          {
            phoneNumberId: r.meta.phoneNumberId,
            to: r.meta.to,
            replyTo: r.wamid,
            body: refusalOf(`this ${r.what}`),
          },
          AbortSignal.timeout(10_000),
        )
        .catch((err: unknown) =>
          this.o.logger.warn(
            { err: (err as Error).message },
            "could not tell the sender their message was refused",
          ),
        );
    }
  }
}

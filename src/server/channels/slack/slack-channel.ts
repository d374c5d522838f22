import type { Logger } from "pino";
import { z } from "zod";
import { type AttachmentMode, refusalText } from "../attachments";
import { sendInParts } from "../shared/send-in-parts";
import { readSignedJsonPost } from "../shared/signed-json-post";
import { splitReply } from "../shared/split-reply";
import {
  type AckOutcome,
  type Channel,
  type ChannelKv,
  type ChannelRequest,
  type ChannelResponse,
  ChannelSendError,
  type ChannelStatus,
  type Inbound,
  type ReplyTarget,
  type SendResult,
  type WaitingIndicator,
  type WakingContext,
} from "../types";
import { failure, type SlackApi } from "./api-client";
import { interpretSlackPayload, type SlackReplyMeta } from "./interpret";
import { SLACK_SIGNATURE_FAILURES, verifySlackSignature } from "./signature";
import { WakingNotices } from "./waking-notice";

/** Slack recommends at most 4,000 characters per message (it truncates at 40,000). */
export const SLACK_MESSAGE_LIMIT = 4_000;
/** Remembered after a signed request arrives: the Request URL points here. */
const SEEN_KEY = "request-url-seen";
const SEEN_TTL_MS = 30 * 24 * 60 * 60_000;

const metaSchema = z.strictObject({ channel: z.string().min(1), threadTs: z.string().nullable() });

export interface SlackChannelOptions {
  api: SlackApi;
  signingSecret: string;
  attachments: AttachmentMode;
  wakingNotice: string;
  webhookUrl: string;
  kv: ChannelKv;
  logger: Logger;
}

/**
 * Slack through the Events API (docs/channels/slack.md): signed event callbacks in, the
 * agent's replies out with chat.postMessage in the same DM or thread.
 */
export class SlackChannel implements Channel {
  readonly name = "slack";
  readonly maxBodyBytes = 1024 * 1024;
  readonly replyInline = false;
  private readonly notices: WakingNotices;
  private seenRecorded = false;

  constructor(private readonly o: SlackChannelOptions) {
    this.notices = new WakingNotices({
      api: o.api,
      kv: o.kv,
      text: o.wakingNotice,
      logger: o.logger,
    });
  }

  async handle(req: ChannelRequest): Promise<Inbound> {
    const payload = readSignedJsonPost(req, {
      hint: "Slack's Events API sends POST",
      verify: (r) => verifySlackSignature(this.o.signingSecret, r.headers, r.rawBody, r.now),
      failures: SLACK_SIGNATURE_FAILURES,
      schema: z.unknown(),
      shape: "a Slack Events API payload",
    });
    const decision = interpretSlackPayload(payload, this.o.attachments);
    await this.recordSeen(req.now);
    switch (decision.kind) {
      case "challenge":
        return {
          kind: "respond",
          response: { status: 200, body: { challenge: decision.challenge } },
        };
      case "message": {
        const { id, conversation, text, meta } = decision;
        return { kind: "message", message: { id, conversation, text, meta: { ...meta } } };
      }
      case "refuse":
        return {
          kind: "ignore",
          reason: decision.reason,
          response: { status: 200, body: { ok: true } },
          after: async () => {
            await this.o.api.postMessage(
              { ...decision.meta, text: refusalText(decision.attachments) },
              AbortSignal.timeout(10_000),
            );
          },
        };
      case "ignore":
        return {
          kind: "ignore",
          reason: decision.reason,
          response: { status: 200, body: { ok: true } },
        };
    }
  }

  /** Slack only needs a 2xx within 3 seconds; anything else makes it retry. */
  acknowledge(_outcome: AckOutcome): ChannelResponse {
    return { status: 200, body: { ok: true } };
  }

  async send(to: ReplyTarget, text: string, signal: AbortSignal): Promise<SendResult> {
    const meta = replyMeta(to);
    // Split first: escaping may lengthen a piece a little, far below Slack's 40,000 cut.
    const pieces = splitReply(text, SLACK_MESSAGE_LIMIT).map(escapeForSlack);
    if (pieces.length === 0) pieces.push("(the agent replied with no text)");
    const notice = await this.notices.find(to.messageId);
    const where = meta.threadTs ? `thread ${meta.threadTs} of ${meta.channel}` : meta.channel;
    // A 429 goes back to the outbox, which retries later and keeps replies in order.
    const sent = await sendInParts({
      parts: pieces,
      kv: this.o.kv,
      progressKey: `progress:${to.messageId}`,
      maxInlineWaitMs: 0,
      signal,
      send: async (piece, i) => {
        if (i === 0 && notice) {
          const updated = await this.o.api.update(
            { channel: meta.channel, ts: notice, text: piece },
            signal,
          );
          if (updated.ok) return;
          // The notice was deleted meanwhile: post the reply instead.
          if (updated.code !== "message_not_found" && updated.code !== "cant_update_message")
            throw failure("chat.update", updated.code);
        }
        await this.o.api.postMessage({ ...meta, text: piece }, signal);
      },
    });
    if (notice) await this.notices.replaced(to.messageId);
    return {
      sent: true,
      detail: `${sent} message(s) to ${where}${notice ? " (replacing the waking notice)" : ""}`,
    };
  }

  whileWaking(to: ReplyTarget, ctx: WakingContext): WaitingIndicator {
    const meta = metaSchema.safeParse(to.meta);
    // Only when a wake is really coming: a running agent answers without a notice. Never
    // throws: the wake that follows must not depend on the notice.
    if (!ctx.waking || !meta.success) return { stop: async () => undefined };
    return this.notices.show(to, meta.data);
  }

  async status(signal: AbortSignal): Promise<ChannelStatus> {
    const seen = await this.o.kv.get(SEEN_KEY).catch(() => null);
    const auth = await this.o.api
      .authTest(signal)
      .catch((err: Error) => ({ ok: false as const, code: err.message }));
    const token = auth.ok
      ? `bot token works (${auth.value.user ?? "bot"} in ${auth.value.team ?? "the workspace"})`
      : `SLACK_BOT_TOKEN does not work: ${auth.code}`;
    const url = seen
      ? `Slack has called ${this.o.webhookUrl} (recorded at ${new Date(Number(seen)).toISOString()})`
      : `no signed request from Slack yet: set Event Subscriptions → Request URL to ${this.o.webhookUrl}`;
    return {
      missingEnv: [],
      // Slack offers no API to read an app's Request URL; a verified request shows it is set.
      webhookRegistered: seen !== null,
      webhookUrl: this.o.webhookUrl,
      detail: `${token}; ${url}`,
    };
  }

  /** Once per process: the first verified request proves the Request URL points here. */
  private async recordSeen(now: number): Promise<void> {
    if (this.seenRecorded) return;
    this.seenRecorded = true;
    await this.o.kv.set(SEEN_KEY, String(now), SEEN_TTL_MS).catch((err: Error) => {
      this.seenRecorded = false;
      this.o.logger.warn({ err: err.message }, "could not record that Slack called");
    });
  }
}

function replyMeta(to: ReplyTarget): SlackReplyMeta {
  const parsed = metaSchema.safeParse(to.meta);
  if (!parsed.success)
    throw new ChannelSendError(`message ${to.messageId} has no Slack channel/thread to reply to`, {
      permanent: true,
    });
  return parsed.data;
}

/** Slack reads &, < and > as markup (links, @channel); the agent's text is shown as written. */
export function escapeForSlack(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
}

import { z } from "zod";
import { signatureHeaders, VERIFY_FAILURE_MESSAGES, verify } from "../../../protocol/signing";
import { readSignedJsonPost } from "../shared/signed-json-post";
import {
  type AckOutcome,
  type Channel,
  type ChannelRequest,
  type ChannelResponse,
  ChannelSendError,
  type ChannelStatus,
  type Inbound,
  type ReplyTarget,
  type SendResult,
} from "../types";

const bodySchema = z.strictObject({
  id: z
    .string({ error: "expected a string" })
    .min(1, { error: "expected a non-empty string" })
    .max(256, { error: "expected at most 256 characters" }),
  conversation: z
    .string({ error: "expected a string" })
    .min(1, { error: "expected a non-empty string" })
    .max(256, { error: "expected at most 256 characters" }),
  text: z.string({ error: "expected a string" }),
});

export interface GenericChannelOptions {
  secret: string;
  replyUrl: string | undefined;
  webhookUrl: string;
  clock: () => number;
}

/**
 * The generic webhook: `POST /api/webhooks/generic` with `{ id, conversation, text }`,
 * signed like everything ClawRun signs (HMAC-SHA256 over "<timestamp>.<raw body>").
 * Replies to queued messages go, signed the same way, to `channels.generic.replyUrl`.
 */
export class GenericChannel implements Channel {
  readonly name = "generic";
  readonly maxBodyBytes = 1024 * 1024;
  readonly replyInline = true;

  constructor(private readonly o: GenericChannelOptions) {}

  async handle(req: ChannelRequest): Promise<Inbound> {
    const body = readSignedJsonPost(req, {
      hint: "the generic webhook takes POST",
      verify: (r) => verify(this.o.secret, r.headers, r.rawBody, r.now),
      failures: VERIFY_FAILURE_MESSAGES,
      schema: bodySchema,
      shape: "{ id, conversation, text }",
    });
    return { kind: "message", message: { ...body, meta: {} } };
  }

  acknowledge(outcome: AckOutcome): ChannelResponse {
    switch (outcome.kind) {
      case "queued":
        return { status: 202, body: { status: "queued", id: outcome.id } };
      case "duplicate":
        return { status: 200, body: { status: "duplicate", id: outcome.id } };
      case "delivered":
        return {
          status: 200,
          body: {
            status: "delivered",
            id: outcome.id,
            reply: outcome.reply,
            details: outcome.details,
          },
        };
    }
  }

  async send(to: ReplyTarget, text: string, signal: AbortSignal): Promise<SendResult> {
    if (!this.o.replyUrl) return { sent: false, detail: "no channels.generic.replyUrl configured" };
    const body = JSON.stringify({ inReplyTo: to.messageId, conversation: to.conversation, text });
    const res = await fetch(this.o.replyUrl, {
      method: "POST",
      body,
      headers: {
        "content-type": "application/json",
        ...signatureHeaders(this.o.secret, body, this.o.clock()),
      },
      signal: AbortSignal.any([signal, AbortSignal.timeout(10_000)]),
    });
    if (!res.ok) {
      const retryAfter = Number(res.headers.get("retry-after"));
      throw new ChannelSendError(`reply URL answered ${res.status}`, {
        retryAfterMs: res.status === 429 && retryAfter > 0 ? retryAfter * 1000 : null,
        permanent: res.status >= 400 && res.status < 500 && res.status !== 429,
      });
    }
    return { sent: true, detail: `posted to ${new URL(this.o.replyUrl).origin}` };
  }

  async status(): Promise<ChannelStatus> {
    return {
      missingEnv: [],
      // Nothing to register: the sender posts to the webhook URL directly.
      webhookRegistered: null,
      webhookUrl: this.o.webhookUrl,
      detail: this.o.replyUrl
        ? `replies to queued messages go to ${new URL(this.o.replyUrl).origin}`
        : "replies to queued messages are kept in the event log (no replyUrl)",
    };
  }
}

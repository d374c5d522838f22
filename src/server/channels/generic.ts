import { z } from "zod";
import { joinPath } from "../../config/format-issues";
import { signatureHeaders, VERIFY_FAILURE_MESSAGES, verify } from "../../protocol/signing";
import type { InboxMessage } from "../domain/inbox-message";
import type { WakeHook } from "../sandbox/wake-hooks";
import {
  type Channel,
  type ChannelMessage,
  type ChannelRequest,
  ChannelRequestError,
} from "./types";

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

/**
 * The generic webhook: `POST /api/webhooks/generic` with `{ id, conversation, text }`,
 * signed like everything ClawRun signs (HMAC-SHA256 over "<timestamp>.<raw body>").
 * Replies to queued messages go, signed the same way, to `channels.generic.replyUrl`.
 */
export class GenericChannel implements Channel {
  readonly name = "generic";
  readonly maxBodyBytes = 1024 * 1024;
  /** Its webhook always lands on ClawRun, awake or asleep: there is nothing to re-point. */
  readonly wakeHook: WakeHook = {
    channel: "generic",
    register: async () => {},
    teardown: async () => {},
  };

  constructor(
    private readonly secret: string,
    private readonly replyUrl: string | undefined,
    private readonly clock: () => number = Date.now,
  ) {}

  receive(req: ChannelRequest): ChannelMessage {
    const check = verify(this.secret, req.headers, req.rawBody, req.now);
    if (!check.ok)
      throw new ChannelRequestError(401, "unauthorized", VERIFY_FAILURE_MESSAGES[check.reason]);
    let json: unknown;
    try {
      json = JSON.parse(req.rawBody.toString("utf8"));
    } catch {
      throw new ChannelRequestError(
        400,
        "invalid_json",
        "body: expected JSON { id, conversation, text }",
      );
    }
    const parsed = bodySchema.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue?.path.length ? joinPath(issue.path) : "body";
      const what =
        issue?.code === "unrecognized_keys"
          ? `unknown field(s) ${issue.keys.join(", ")}`
          : issue?.message;
      throw new ChannelRequestError(400, "invalid_body", `${where}: ${what}`);
    }
    return { ...parsed.data, meta: {} };
  }

  async reply(message: InboxMessage, reply: string): Promise<{ sent: boolean; detail: string }> {
    if (!this.replyUrl) return { sent: false, detail: "no channels.generic.replyUrl configured" };
    const body = JSON.stringify({
      inReplyTo: message.id,
      conversation: message.conversation,
      text: reply,
    });
    const res = await fetch(this.replyUrl, {
      method: "POST",
      body,
      headers: {
        "content-type": "application/json",
        ...signatureHeaders(this.secret, body, this.clock()),
      },
      signal: AbortSignal.timeout(10_000),
    });
    if (!res.ok) throw new Error(`reply URL answered ${res.status}`);
    return { sent: true, detail: `posted to ${new URL(this.replyUrl).origin}` };
  }
}

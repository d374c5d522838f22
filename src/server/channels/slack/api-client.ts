import { z } from "zod";
import { ChannelSendError } from "../types";

/**
 * The three Slack Web API methods ClawRun calls (docs/channels/slack.md): chat.postMessage,
 * chat.update and auth.test. JSON bodies with the bot token as a Bearer token. Slack answers
 * HTTP 200 with `{ ok: false, error }` for most failures and HTTP 429 with Retry-After
 * (seconds) when rate limited.
 */

const TIMEOUT_MS = 10_000;
/** `error` codes that a later attempt may not get; every other code is permanent. */
const TRANSIENT = new Set([
  "ratelimited",
  "internal_error",
  "fatal_error",
  "service_unavailable",
  "request_timeout",
]);

const resultSchema = z.looseObject({ ok: z.boolean(), error: z.string().optional() });
const postedSchema = z.looseObject({ ts: z.string().min(1), channel: z.string().optional() });
const authSchema = z.looseObject({
  url: z.string().optional(),
  team: z.string().optional(),
  user: z.string().optional(),
  user_id: z.string().optional(),
  bot_id: z.string().optional(),
});

export interface SlackApiOptions {
  /** e.g. "https://slack.com/api" (no trailing slash needed). */
  baseUrl: string;
  token: string;
}

/** Slack's answer was `ok: false`: `code` is its `error` field. */
export type SlackResult<T> = { ok: true; value: T } | { ok: false; code: string };

export class SlackApi {
  private readonly base: string;

  constructor(private readonly o: SlackApiOptions) {
    this.base = o.baseUrl.replace(/\/+$/, "");
  }

  /** Posts `text` in the channel, in the thread when `threadTs` is given; resolves to its ts. */
  async postMessage(
    m: { channel: string; text: string; threadTs: string | null },
    signal: AbortSignal,
  ): Promise<string> {
    const body = {
      channel: m.channel,
      text: m.text,
      ...(m.threadTs ? { thread_ts: m.threadTs } : {}),
    };
    const r = await this.call("chat.postMessage", body, postedSchema, signal);
    if (!r.ok) throw failure("chat.postMessage", r.code);
    return r.value.ts;
  }

  /** Replaces a message's text; `message_not_found` etc. come back as a result, not thrown. */
  update(
    m: { channel: string; ts: string; text: string },
    signal: AbortSignal,
  ): Promise<SlackResult<unknown>> {
    return this.call("chat.update", m, z.unknown(), signal);
  }

  /** Who the token belongs to (checks that it works). */
  authTest(signal: AbortSignal): Promise<SlackResult<z.output<typeof authSchema>>> {
    return this.call("auth.test", {}, authSchema, signal);
  }

  private async call<T>(
    method: string,
    body: unknown,
    schema: z.ZodType<T>,
    signal: AbortSignal,
  ): Promise<SlackResult<T>> {
    let res: Response;
    try {
      res = await fetch(`${this.base}/${method}`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${this.o.token}`,
          "content-type": "application/json; charset=utf-8",
        },
        body: JSON.stringify(body),
        signal: AbortSignal.any([signal, AbortSignal.timeout(TIMEOUT_MS)]),
      });
    } catch (err) {
      throw new ChannelSendError(`Slack ${method} could not be reached: ${(err as Error).message}`);
    }
    if (res.status === 429) {
      const seconds = Number(res.headers.get("retry-after"));
      throw new ChannelSendError(`Slack ${method} is rate limited (429)`, {
        retryAfterMs: Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : 1000,
      });
    }
    if (!res.ok) {
      throw new ChannelSendError(`Slack ${method} answered HTTP ${res.status}`, {
        permanent: res.status < 500,
      });
    }
    const json: unknown = await res.json().catch(() => null);
    const result = resultSchema.safeParse(json);
    if (!result.success)
      throw new ChannelSendError(`Slack ${method} answered something that is not its JSON result`);
    if (!result.data.ok) return { ok: false, code: result.data.error ?? "unknown_error" };
    const value = schema.safeParse(json);
    if (!value.success)
      throw new ChannelSendError(`Slack ${method} answered ok without the expected fields`, {
        permanent: true,
      });
    return { ok: true, value: value.data };
  }
}

/** A Slack `error` code as a send failure: permanent unless retrying can help. */
export function failure(method: string, code: string): ChannelSendError {
  return new ChannelSendError(`Slack ${method} failed: ${code}`, {
    permanent: !TRANSIENT.has(code),
    retryAfterMs: code === "ratelimited" ? 1000 : null,
  });
}

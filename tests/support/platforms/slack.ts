import { createHmac } from "node:crypto";
import type {
  AppMentionEvent,
  FileShareMessageEvent,
  GenericMessageEvent,
  MessageChangedEvent,
  ReactionAddedEvent,
  SlackEvent,
} from "@slack/types";
import { type FakeReply, type RecordedCall, startRecordingServer } from "./http";

/**
 * A stand-in for Slack, both directions, built from Slack's documented formats
 * (docs/channels/slack.md lists them):
 * - its Web API at `<url>/api/<method>`: chat.postMessage, chat.update and auth.test, JSON
 *   bodies with `Authorization: Bearer <bot token>`, answers `{ ok, ... }` / `{ ok: false,
 *   error }` with HTTP 200, and HTTP 429 + Retry-After (seconds) when told to rate limit;
 * - its Events API sender: event callbacks (typed with @slack/types, Slack's own SDK types)
 *   signed with the signing secret like Slack signs them, with X-Slack-Retry-Num on retries.
 * Every Web API call is recorded; the bot's messages are kept per channel and thread.
 */

export const BOT_USER_ID = "U0CLAWBOT";
export const BOT_ID = "B0CLAWBOT";
export const TEAM_ID = "T0CLAWRUN";

export interface SlackPostedMessage {
  channel: string;
  ts: string;
  threadTs: string | null;
  /** The current text (after any chat.update). */
  text: string;
  /** Every text it had, first the posted one. */
  history: string[];
}

export interface EventEnvelope {
  token: string;
  team_id: string;
  api_app_id: string;
  event: SlackEvent | Record<string, unknown>;
  type: "event_callback";
  event_id: string;
  event_time: number;
  authorizations: {
    team_id: string;
    user_id: string;
    is_bot: boolean;
    is_enterprise_install: boolean;
  }[];
  is_ext_shared_channel: boolean;
  event_context: string;
}

export interface FakeSlack {
  /** `channels.slack.apiBaseUrl`. */
  apiBaseUrl: string;
  calls: RecordedCall[];
  messages: SlackPostedMessage[];
  /** After `after` more calls (default 0), `count` Web API calls answer 429 with Retry-After: `seconds`. */
  rateLimit(count: number, seconds: number, after?: number): void;
  /** The next Web API call answers `{ ok: false, error }` (or HTTP `status` when given). */
  failNext(error: string, status?: number): void;
  /** A signed Events API request as Slack sends it. */
  signedRequest(
    payload: unknown,
    o?: { timestamp?: number; retryNum?: number; secret?: string },
  ): { headers: Record<string, string>; body: string };
  /** POSTs a signed payload to ClawRun's webhook and returns its answer. */
  deliver(
    webhookUrl: string,
    payload: unknown,
    o?: { retryNum?: number },
  ): Promise<{ status: number; body: unknown; ms: number }>;
  stop(): Promise<void>;
}

export async function startFakeSlack(o: {
  token: string;
  signingSecret: string;
}): Promise<FakeSlack> {
  const messages: SlackPostedMessage[] = [];
  let limited = 0;
  let limitAfter = 0;
  let limitSeconds = 1;
  let failure: { error: string; status?: number } | null = null;
  let seq = 0;

  const server = await startRecordingServer((call) => {
    const method = /^\/api\/([\w.]+)$/.exec(call.path)?.[1];
    if (!method || call.method !== "POST")
      return { status: 404, body: { ok: false, error: "unknown_method" } };
    if (limited > 0 && limitAfter > 0) limitAfter -= 1;
    else if (limited > 0) {
      limited -= 1;
      return {
        status: 429,
        headers: { "retry-after": String(limitSeconds) },
        body: { ok: false, error: "ratelimited" },
      };
    }
    if (failure) {
      const f = failure;
      failure = null;
      return f.status
        ? { status: f.status, body: { ok: false, error: f.error } }
        : ok({ ok: false, error: f.error });
    }
    const auth = call.headers.authorization;
    if (!auth) return ok({ ok: false, error: "not_authed" });
    if (auth !== `Bearer ${o.token}`) return ok({ ok: false, error: "invalid_auth" });
    if (!call.headers["content-type"]?.startsWith("application/json"))
      return ok({ ok: false, error: "invalid_arguments" });
    const body = (call.body ?? {}) as Record<string, unknown>;
    switch (method) {
      case "auth.test":
        return ok({
          ok: true,
          url: "https://clawrun-test.slack.com/",
          team: "ClawRun Test",
          user: "clawrun",
          team_id: TEAM_ID,
          user_id: BOT_USER_ID,
          bot_id: BOT_ID,
        });
      case "chat.postMessage":
        return postMessage(body);
      case "chat.update":
        return update(body);
      default:
        return ok({ ok: false, error: "unknown_method" });
    }
  });

  function postMessage(body: Record<string, unknown>): FakeReply {
    const channel = body.channel;
    if (typeof channel !== "string" || !/^[CDG][A-Z0-9]+$/.test(channel))
      return ok({ ok: false, error: "channel_not_found" });
    if (typeof body.text !== "string" || body.text.trim() === "")
      return ok({ ok: false, error: "no_text" });
    if (body.text.length > 40_000) return ok({ ok: false, error: "msg_too_long" });
    seq += 1;
    const ts = `${Math.floor(Date.now() / 1000)}.${String(seq).padStart(6, "0")}`;
    const threadTs = typeof body.thread_ts === "string" ? body.thread_ts : null;
    messages.push({ channel, ts, threadTs, text: body.text, history: [body.text] });
    return ok({
      ok: true,
      channel,
      ts,
      message: {
        type: "message",
        text: body.text,
        user: BOT_USER_ID,
        bot_id: BOT_ID,
        ts,
        ...(threadTs ? { thread_ts: threadTs } : {}),
      },
    });
  }

  function update(body: Record<string, unknown>): FakeReply {
    const found = messages.find((m) => m.channel === body.channel && m.ts === body.ts);
    if (!found) return ok({ ok: false, error: "message_not_found" });
    if (typeof body.text !== "string" || body.text.trim() === "")
      return ok({ ok: false, error: "no_text" });
    found.text = body.text;
    found.history.push(body.text);
    return ok({ ok: true, channel: found.channel, ts: found.ts, text: body.text });
  }

  const signedRequest: FakeSlack["signedRequest"] = (payload, opts = {}) => {
    const body = JSON.stringify(payload);
    const timestamp = String(Math.floor((opts.timestamp ?? Date.now()) / 1000));
    const mac = createHmac("sha256", opts.secret ?? o.signingSecret)
      .update(`v0:${timestamp}:${body}`)
      .digest("hex");
    return {
      body,
      headers: {
        "content-type": "application/json",
        "x-slack-request-timestamp": timestamp,
        "x-slack-signature": `v0=${mac}`,
        ...(opts.retryNum
          ? { "x-slack-retry-num": String(opts.retryNum), "x-slack-retry-reason": "http_timeout" }
          : {}),
      },
    };
  };

  return {
    apiBaseUrl: `${server.url}/api`,
    calls: server.calls,
    messages,
    rateLimit(count, seconds, after = 0) {
      limited = count;
      limitSeconds = seconds;
      limitAfter = after;
    },
    failNext(error, status) {
      failure = { error, ...(status ? { status } : {}) };
    },
    signedRequest,
    async deliver(webhookUrl, payload, opts = {}) {
      const req = signedRequest(payload, opts);
      const t0 = performance.now();
      const res = await fetch(webhookUrl, { method: "POST", headers: req.headers, body: req.body });
      const ms = performance.now() - t0;
      const text = await res.text();
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // not JSON
      }
      return { status: res.status, body, ms };
    },
    stop: server.stop,
  };
}

function ok(body: unknown): FakeReply {
  return { status: 200, body };
}

/** Wraps an event the way the Events API delivers it. */
export function envelope(eventId: string, event: EventEnvelope["event"]): EventEnvelope {
  return {
    token: "legacy-verification-token",
    team_id: TEAM_ID,
    api_app_id: "A0CLAWRUN",
    event,
    type: "event_callback",
    event_id: eventId,
    event_time: Math.floor(Date.now() / 1000),
    authorizations: [
      { team_id: TEAM_ID, user_id: BOT_USER_ID, is_bot: true, is_enterprise_install: false },
    ],
    is_ext_shared_channel: false,
    event_context: `4-${eventId}`,
  };
}

/** A person's direct message to the app (`message.im`). */
export function directMessage(m: {
  channel: string;
  user: string;
  text: string;
  ts: string;
  threadTs?: string;
}): GenericMessageEvent {
  return {
    type: "message",
    subtype: undefined,
    channel: m.channel,
    user: m.user,
    text: m.text,
    ts: m.ts,
    event_ts: m.ts,
    channel_type: "im",
    client_msg_id: `msg-${m.ts}`,
    ...(m.threadTs ? { thread_ts: m.threadTs } : {}),
  };
}

/** A person mentioning the app in a channel (`app_mention`). */
export function mention(m: {
  channel: string;
  user: string;
  text: string;
  ts: string;
  threadTs?: string;
}): AppMentionEvent {
  return {
    type: "app_mention",
    user: m.user,
    text: `<@${BOT_USER_ID}> ${m.text}`,
    ts: m.ts,
    channel: m.channel,
    event_ts: m.ts,
    ...(m.threadTs ? { thread_ts: m.threadTs } : {}),
  };
}

/** A direct message with one uploaded file. */
export function fileShare(m: {
  channel: string;
  user: string;
  text: string;
  ts: string;
  file: { name: string; mimetype: string; size: number };
}): FileShareMessageEvent {
  return {
    type: "message",
    subtype: "file_share",
    text: m.text,
    user: m.user,
    ts: m.ts,
    channel: m.channel,
    channel_type: "im",
    event_ts: m.ts,
    upload: false,
    files: [
      {
        id: "F0FILE",
        created: Math.floor(Date.now() / 1000),
        name: m.file.name,
        title: m.file.name,
        mimetype: m.file.mimetype,
        filetype: m.file.mimetype.split("/")[1] ?? "binary",
        pretty_type: m.file.mimetype,
        editable: false,
        size: m.file.size,
        mode: "hosted",
        is_external: false,
        external_type: null,
        is_public: false,
        public_url_shared: false,
        display_as_bot: false,
        username: null,
        permalink: `https://clawrun-test.slack.com/files/${m.user}/F0FILE/${m.file.name}`,
        channels: [],
        groups: [],
      },
    ],
  };
}

/** The app's own message coming back as an event (what ClawRun must not answer). */
export function ownMessage(m: { channel: string; text: string; ts: string }): GenericMessageEvent {
  return { ...directMessage({ ...m, user: BOT_USER_ID }), bot_id: BOT_ID };
}

export function edited(m: { channel: string; ts: string; text: string }): MessageChangedEvent {
  const before = directMessage({ channel: m.channel, user: "U0PERSON", text: "before", ts: m.ts });
  return {
    type: "message",
    subtype: "message_changed",
    hidden: true,
    channel: m.channel,
    channel_type: "im",
    ts: `${m.ts}1`,
    event_ts: `${m.ts}1`,
    message: { ...before, text: m.text },
    previous_message: before,
  };
}

export function reaction(m: { channel: string; ts: string }): ReactionAddedEvent {
  return {
    type: "reaction_added",
    user: "U0PERSON",
    reaction: "thumbsup",
    item_user: BOT_USER_ID,
    item: { type: "message", channel: m.channel, ts: m.ts },
    event_ts: m.ts,
  };
}

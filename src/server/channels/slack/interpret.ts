import { parseJsonValue } from "../../body/json-body";
import { type AttachmentInfo, type AttachmentMode, textWithAttachments } from "../attachments";
import {
  type EventCallback,
  envelopeSchema,
  eventCallbackSchema,
  type MessageEvent,
  messageEventSchema,
  type SlackFile,
  urlVerificationSchema,
} from "./payload";

/** Where a reply goes: the channel, and the thread (null: the channel itself, in a DM). */
export interface SlackReplyMeta {
  channel: string;
  threadTs: string | null;
}

export type SlackDecision =
  | { kind: "challenge"; challenge: string }
  | { kind: "message"; id: string; conversation: string; text: string; meta: SlackReplyMeta }
  /** Attachments while configured to refuse them: tell the sender, store nothing. */
  | { kind: "refuse"; reason: string; meta: SlackReplyMeta; attachments: AttachmentInfo[] }
  | { kind: "ignore"; reason: string };

const WHAT = "a Slack Events API payload";
/** Message subtypes that are new messages from a person; every other subtype is not. */
const NEW_MESSAGE_SUBTYPES = new Set([undefined, "file_share", "thread_broadcast"]);

/**
 * What ClawRun makes of a verified Events API payload (pure; docs/channels/slack.md lists
 * the rules). Direct messages (`message` with channel_type "im") and mentions in channels
 * (`app_mention`) are messages for the agent; a mention is answered in its thread. Bots'
 * messages, edits, deletions and other events are ignored. Throws ChannelRequestError (400)
 * for a payload that is not what Slack sends.
 */
export function interpretSlackPayload(json: unknown, attachments: AttachmentMode): SlackDecision {
  const { type } = parseJsonValue(json, envelopeSchema, WHAT);
  if (type === "url_verification") {
    return {
      kind: "challenge",
      challenge: parseJsonValue(json, urlVerificationSchema, WHAT).challenge,
    };
  }
  if (type !== "event_callback") return { kind: "ignore", reason: `"${type}" payload` };
  const envelope = parseJsonValue(json, eventCallbackSchema, WHAT);
  const eventType = envelope.event.type;
  if (eventType !== "message" && eventType !== "app_mention")
    return { kind: "ignore", reason: `"${eventType}" event (not a message)` };
  const event = parseJsonValue(envelope.event, messageEventSchema, WHAT, ["event"]);
  const skip = ignoreReason(event);
  if (skip) return { kind: "ignore", reason: skip };

  const isDm = isDirect(event);
  // A direct message is answered where it was written; a mention starts (or continues) a thread.
  const threadTs = event.thread_ts ?? (isDm ? null : event.ts);
  const meta: SlackReplyMeta = { channel: event.channel, threadTs };
  const files = (event.files ?? []).map(fileInfo);
  if (files.length > 0 && attachments === "refuse")
    return {
      kind: "refuse",
      reason: "a message with files (configured to refuse them)",
      meta,
      attachments: files,
    };
  const text = textWithAttachments(messageText(event, envelope), files);
  if (text === "") return { kind: "ignore", reason: "an empty message" };
  return {
    kind: "message",
    id: envelope.event_id,
    conversation: `slack:${event.channel}${threadTs ? `:${threadTs}` : ""}`,
    text,
    meta,
  };
}

function ignoreReason(event: MessageEvent): string | null {
  // Never answering bots (ClawRun's own replies included) means two bots cannot loop.
  if (event.bot_id || event.subtype === "bot_message") return "a bot's message";
  if (!NEW_MESSAGE_SUBTYPES.has(event.subtype))
    return `message subtype "${event.subtype}" (not a new message from a person)`;
  if (!event.user) return "a message without a sender";
  const isDm = isDirect(event);
  // Each message is handled once: the `message` event carries DMs, `app_mention` carries mentions.
  if (event.type === "message" && !isDm)
    return "a channel message (the app answers mentions there, via app_mention)";
  if (event.type === "app_mention" && isDm)
    return "a mention inside a direct message (the message event carries it)";
  return null;
}

/** A direct message with the app (app_mention carries no channel_type; DM channel ids start with D). */
function isDirect(event: MessageEvent): boolean {
  return event.channel_type ? event.channel_type === "im" : event.channel.startsWith("D");
}

/** The text as the person wrote it: Slack's escapes undone, the app's own mention removed. */
function messageText(event: MessageEvent, envelope: EventCallback): string {
  let text = event.text ?? "";
  if (event.type === "app_mention") {
    const bot = envelope.authorizations?.find((a) => a.is_bot)?.user_id;
    text = bot ? text.replaceAll(`<@${bot}>`, "") : text.replace(/^\s*<@[A-Z0-9]+>/, "");
  }
  return text.replaceAll("&lt;", "<").replaceAll("&gt;", ">").replaceAll("&amp;", "&").trim();
}

function fileInfo(f: SlackFile): AttachmentInfo {
  return {
    name: f.name ?? f.title ?? null,
    type: f.mimetype || f.pretty_type || null,
    bytes: f.size ?? null,
  };
}

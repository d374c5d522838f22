import {
  type AttachmentInfo,
  type AttachmentMode,
  refusalText,
  textWithAttachments,
} from "../attachments";
import { ChannelRequestError } from "../types";
import { ASK_COMMAND_NAME, ASK_FILE_OPTION, ASK_MESSAGE_OPTION } from "./ask-command";
import {
  type Interaction,
  type InteractionAttachment,
  InteractionType,
  OptionType,
} from "./interaction";

/** Interaction tokens answer for 15 minutes (Discord's rule). */
export const INTERACTION_TOKEN_TTL_MS = 15 * 60_000;
/** The EPHEMERAL message flag: only the person who asked sees the message. */
export const EPHEMERAL = 64;

/** What a reply needs: the interaction token (until it expires) and the channel after that. */
export interface DiscordReplyMeta {
  token: string;
  channelId: string;
  /** Epoch ms after which the token no longer works. */
  expiresAt: number;
}

export type DiscordDecision =
  | { kind: "pong" }
  | { kind: "message"; id: string; conversation: string; text: string; meta: DiscordReplyMeta }
  /** Answered at once with this interaction response; nothing is stored. */
  | { kind: "answer"; reason: string; response: unknown };

/**
 * What ClawRun makes of a verified interaction (pure; docs/channels/discord.md). PING is
 * answered with PONG; `/ask` becomes a message for the agent; anything else gets a short
 * answer only its sender sees. Throws ChannelRequestError (400) when the interaction is not
 * for this application or lacks what `/ask` always has.
 */
export function interpretInteraction(
  i: Interaction,
  o: { applicationId: string; attachments: AttachmentMode; now: number },
): DiscordDecision {
  if (i.application_id !== o.applicationId)
    throw new ChannelRequestError(
      400,
      "wrong_application",
      `application_id: this interaction is for application ${i.application_id}, but channels.discord.applicationId is ${o.applicationId}`,
    );
  if (i.type === InteractionType.Ping) return { kind: "pong" };
  if (i.type === InteractionType.Autocomplete)
    return { kind: "answer", reason: "autocomplete", response: { type: 8, data: { choices: [] } } };
  if (i.type !== InteractionType.ApplicationCommand || i.data?.name !== ASK_COMMAND_NAME)
    return notice("not /ask", `This app only answers /${ASK_COMMAND_NAME}.`);

  const channelId = i.channel_id ?? i.channel?.id;
  const userId = i.member?.user.id ?? i.user?.id;
  if (!channelId) throw bad("channel_id", "expected the channel the command was used in");
  if (!userId) throw bad("member.user.id", "expected who used the command (member.user or user)");
  const options = i.data.options ?? [];
  const message = options.find(
    (op) => op.name === ASK_MESSAGE_OPTION && op.type === OptionType.String,
  );
  const text = typeof message?.value === "string" ? message.value.trim() : "";
  const files = options
    .filter((op) => op.name === ASK_FILE_OPTION && op.type === OptionType.Attachment)
    .map((op) => i.data?.resolved?.attachments?.[String(op.value)])
    .map(attachmentInfo);
  if (files.length > 0 && o.attachments === "refuse")
    return notice("a file (configured to refuse them)", refusalText(files));
  const full = textWithAttachments(text, files);
  if (full === "")
    return notice("an empty /ask", `Add a message: /${ASK_COMMAND_NAME} message:<text>`);
  return {
    kind: "message",
    id: i.id,
    // Each person has their own conversation with the agent in each channel.
    conversation: `discord:${channelId}:${userId}`,
    text: full,
    meta: { token: i.token, channelId, expiresAt: o.now + INTERACTION_TOKEN_TTL_MS },
  };
}

/** CHANNEL_MESSAGE_WITH_SOURCE, visible only to the sender. */
function notice(reason: string, content: string): DiscordDecision {
  return {
    kind: "answer",
    reason,
    response: { type: 4, data: { content, flags: EPHEMERAL, allowed_mentions: { parse: [] } } },
  };
}

function attachmentInfo(a: InteractionAttachment | undefined): AttachmentInfo {
  return { name: a?.filename ?? null, type: a?.content_type ?? null, bytes: a?.size ?? null };
}

function bad(key: string, expected: string): ChannelRequestError {
  return new ChannelRequestError(
    400,
    "invalid_body",
    `${key}: ${expected}, in a Discord interaction`,
  );
}

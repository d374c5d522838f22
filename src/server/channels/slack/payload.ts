import { z } from "zod";

/**
 * The Slack Events API payloads ClawRun reads (docs/channels/slack.md). Objects are loose:
 * Slack adds fields over time and unknown ones must not make a real event fail. Only the
 * fields used are declared.
 */

const id = (what: string) =>
  z
    .string({ error: `expected ${what} (a string)` })
    .min(1, { error: `expected ${what}, got an empty string` })
    .max(256, { error: `expected ${what} of at most 256 characters` });

/** The outer envelope: its `type` says what kind of request this is. */
export const envelopeSchema = z.looseObject({
  type: id("the payload type"),
});

/** Sent once when the Request URL is set in the app's settings. */
export const urlVerificationSchema = z.looseObject({
  type: z.literal("url_verification"),
  challenge: id("the challenge"),
});

/** Every subscribed event arrives wrapped like this. */
export const eventCallbackSchema = z.looseObject({
  type: z.literal("event_callback"),
  event_id: id("the event id"),
  team_id: z.string().optional(),
  /** Who the app acts as in this workspace: the bot user is mentioned as <@user_id>. */
  authorizations: z
    .array(z.looseObject({ user_id: z.string().optional(), is_bot: z.boolean().optional() }))
    .optional(),
  event: z.looseObject({ type: id("the event type") }, { error: "expected the event object" }),
});

const fileSchema = z.looseObject({
  name: z.string().nullish(),
  title: z.string().nullish(),
  mimetype: z.string().nullish(),
  pretty_type: z.string().nullish(),
  size: z.number().nullish(),
});

/** A `message` or `app_mention` event (the two that can carry a message for the agent). */
export const messageEventSchema = z.looseObject({
  type: z.enum(["message", "app_mention"]),
  subtype: z.string().optional(),
  channel: id("the channel id"),
  /** "im" for a direct message with the app; absent on app_mention. */
  channel_type: z.string().optional(),
  user: z.string().optional(),
  bot_id: z.string().nullish(),
  text: z.string().optional(),
  ts: id("the message ts"),
  thread_ts: z.string().optional(),
  files: z.array(fileSchema).optional(),
});

export type EventCallback = z.output<typeof eventCallbackSchema>;
export type MessageEvent = z.output<typeof messageEventSchema>;
export type SlackFile = z.output<typeof fileSchema>;

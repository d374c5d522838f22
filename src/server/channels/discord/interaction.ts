import { z } from "zod";

/**
 * The interaction payloads ClawRun reads (docs/channels/discord.md). Objects are loose:
 * Discord adds fields over time; only the fields used are declared.
 */

export const snowflake = (what: string) =>
  z.string({ error: `expected ${what} (a snowflake string)` }).regex(/^\d{1,20}$/, {
    error: `expected ${what} (a snowflake: digits)`,
  });

/** Interaction types (Discord's numbering). */
export const InteractionType = {
  Ping: 1,
  ApplicationCommand: 2,
  MessageComponent: 3,
  Autocomplete: 4,
  ModalSubmit: 5,
} as const;

/** Application command option types used by /ask. */
export const OptionType = { String: 3, Attachment: 11 } as const;

const userSchema = z.looseObject({ id: snowflake("the user id") });

const optionSchema = z.looseObject({
  name: z.string(),
  type: z.number().int(),
  value: z.union([z.string(), z.number(), z.boolean()]).optional(),
});

const attachmentSchema = z.looseObject({
  filename: z.string().nullish(),
  content_type: z.string().nullish(),
  size: z.number().nullish(),
});

export const interactionSchema = z.looseObject({
  id: snowflake("the interaction id"),
  application_id: snowflake("the application id"),
  type: z.number({ error: "expected the interaction type (a number)" }).int(),
  /** Lets the app answer for 15 minutes, without the bot token. */
  token: z
    .string({ error: "expected the interaction token" })
    .min(1, { error: "expected the interaction token" })
    .max(1000, { error: "expected an interaction token of at most 1000 characters" }),
  channel_id: snowflake("the channel id").optional(),
  channel: z.looseObject({ id: snowflake("the channel id") }).optional(),
  /** In a server; `user` instead in a DM. */
  member: z.looseObject({ user: userSchema }).optional(),
  user: userSchema.optional(),
  data: z
    .looseObject({
      name: z.string().optional(),
      type: z.number().int().optional(),
      options: z.array(optionSchema).optional(),
      resolved: z
        .looseObject({ attachments: z.record(z.string(), attachmentSchema).optional() })
        .optional(),
    })
    .optional(),
});

export type Interaction = z.output<typeof interactionSchema>;
export type InteractionAttachment = z.output<typeof attachmentSchema>;

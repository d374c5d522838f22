import { z } from "zod";

/**
 * The part of Telegram's Update object ClawRun reads (Bot API docs: "Update", "Message").
 * Objects are loose: Telegram adds fields over time and an unknown field must not turn a
 * person's message into a 400.
 */
const chatSchema = z.looseObject({ id: z.number().int(), type: z.string() });
const userSchema = z.looseObject({ id: z.number().int(), is_bot: z.boolean() });
export const messageSchema = z.looseObject({
  message_id: z.number().int(),
  message_thread_id: z.number().int().optional(),
  is_topic_message: z.boolean().optional(),
  from: userSchema.optional(),
  chat: chatSchema,
  date: z.number().int(),
  text: z.string().optional(),
  caption: z.string().optional(),
});
export const updateSchema = z.looseObject({
  update_id: z.number().int().nonnegative(),
  message: messageSchema.optional(),
});
export type TelegramMessage = z.output<typeof messageSchema>;

import { z } from "zod";
import { apiBaseUrlSchema } from "../api-base-url";
import { attachmentModeSchema } from "../attachments";
import type { ChannelModule } from "../types";
import { channelWebhookUrl } from "../webhook-url";
import { deriveSecretToken } from "./secret-token";
import { TelegramApi } from "./telegram-api";
import { TelegramChannel } from "./telegram-channel";

const configSchema = z.strictObject({
  /** The Bot API server; change it for a proxy, a self-hosted Bot API server, or tests. */
  apiBaseUrl: apiBaseUrlSchema({ host: "https://api.telegram.org" }),
  /** Photos, voice, files, stickers: described to the agent as text, or refused to the sender. */
  attachments: attachmentModeSchema,
  /** Only these chat ids reach the agent (others are ignored); absent: every chat. */
  allowedChats: z
    .array(z.union([z.int(), z.string().regex(/^-?\d+$/)]), {
      error: "expected an array of Telegram chat ids",
    })
    .transform((ids) => ids.map(String))
    .optional(),
});

const envSchema = z.object({
  /** From @BotFather: "<bot id>:<secret>". */
  TELEGRAM_BOT_TOKEN: z.string().regex(/^\d+:[A-Za-z0-9_-]{20,}$/, {
    error: "expected the token @BotFather gave you (<digits>:<letters, digits, _ or ->)",
  }),
  /** Optional: the secret_token for setWebhook; derived from CLAWRUN_WEBHOOK_SECRET if unset. */
  TELEGRAM_WEBHOOK_SECRET: z
    .string()
    .regex(/^[A-Za-z0-9_-]{16,256}$/, {
      error: "expected 16-256 characters of A-Z, a-z, 0-9, _ and -",
    })
    .optional(),
  CLAWRUN_WEBHOOK_SECRET: z.string().min(16),
});

/** A Telegram bot (Bot API webhooks). */
export const telegramChannel: ChannelModule<
  z.output<typeof configSchema>,
  z.output<typeof envSchema>
> = {
  name: "telegram",
  description: "a Telegram bot: messages to it wake the agent, replies come from the bot",
  configSchema,
  envSchema,
  create: (config, deps) =>
    new TelegramChannel({
      api: new TelegramApi({ baseUrl: config.apiBaseUrl, token: deps.env.TELEGRAM_BOT_TOKEN }),
      secretToken:
        deps.env.TELEGRAM_WEBHOOK_SECRET ?? deriveSecretToken(deps.env.CLAWRUN_WEBHOOK_SECRET),
      webhookUrl: channelWebhookUrl(deps, "telegram"),
      attachments: config.attachments,
      allowedChats: config.allowedChats,
      kv: deps.kv,
      clock: deps.clock,
      logger: deps.logger,
    }),
};

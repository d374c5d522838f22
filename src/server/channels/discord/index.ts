import { z } from "zod";
import { apiBaseUrlSchema } from "../api-base-url";
import { attachmentModeSchema } from "../attachments";
import type { ChannelModule } from "../types";
import { channelWebhookUrl } from "../webhook-url";
import { DiscordApi } from "./api-client";
import { DiscordChannel } from "./discord-channel";
import { discordPublicKey } from "./signature";

const configSchema = z.strictObject({
  /** Discord's API host (ClawRun speaks API v10 under /api/v10); change it only for a proxy (or a test double). */
  apiBaseUrl: apiBaseUrlSchema({
    host: "https://discord.com",
    apiPath: "/api/v10",
    otherPath: /\/api(\/v\d+)?$/,
  }),
  /** General Information → Application ID. */
  applicationId: z
    .string({ error: "expected the Application ID (digits)" })
    .regex(/^\d{17,20}$/, { error: "expected the Application ID (17 to 20 digits)" }),
  /** General Information → Public Key: checks that interactions come from Discord. */
  publicKey: z
    .string({ error: "expected the application's Public Key (64 hex characters)" })
    .regex(/^[0-9a-fA-F]{64}$/, {
      error: "expected the application's Public Key (64 hex characters)",
    }),
  /** Files attached to /ask: described to the agent, or refused with a note to the sender. */
  attachments: attachmentModeSchema,
  /** Answers only the person who asked can see. */
  ephemeral: z.boolean({ error: "expected true or false" }).default(false),
});

const envSchema = z.object({
  /** Bot → Token: registers /ask and the endpoint, and posts replies after 15 minutes. */
  DISCORD_BOT_TOKEN: z.string().min(20, { error: "expected the bot token from the Bot page" }),
});

/** Discord through interactions: the /ask slash command, answered in place. */
export const discordChannel: ChannelModule<
  z.output<typeof configSchema>,
  z.output<typeof envSchema>
> = {
  name: "discord",
  description: "Discord app (interactions): the /ask slash command in servers and DMs",
  configSchema,
  envSchema,
  create: (config, deps) =>
    new DiscordChannel({
      api: new DiscordApi({
        baseUrl: config.apiBaseUrl,
        applicationId: config.applicationId,
        botToken: deps.env.DISCORD_BOT_TOKEN,
      }),
      publicKey: discordPublicKey(config.publicKey),
      applicationId: config.applicationId,
      attachments: config.attachments,
      ephemeral: config.ephemeral,
      webhookUrl: channelWebhookUrl(deps, "discord"),
      kv: deps.kv,
      clock: deps.clock,
    }),
};

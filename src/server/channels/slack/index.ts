import { z } from "zod";
import { apiBaseUrlSchema } from "../api-base-url";
import { attachmentModeSchema } from "../attachments";
import type { ChannelModule } from "../types";
import { channelWebhookUrl } from "../webhook-url";
import { SlackApi } from "./api-client";
import { SlackChannel } from "./slack-channel";

const configSchema = z.strictObject({
  /** Slack's API host (the Web API is under /api); change it only for a proxy (or a test double). */
  apiBaseUrl: apiBaseUrlSchema({ host: "https://slack.com", apiPath: "/api" }),
  /** Files and images: described to the agent, or refused with a note to the sender. */
  attachments: attachmentModeSchema,
  /** Posted where the reply will go while the agent wakes; the reply replaces it. */
  wakingNotice: z
    .string({ error: "expected a short text" })
    .min(1, { error: "expected a short text" })
    .max(500, { error: "expected at most 500 characters" })
    .default("Waking up… the answer will appear here in a moment."),
});

const envSchema = z.object({
  /** Bot User OAuth Token (OAuth & Permissions): chat:write, app_mentions:read, im:history. */
  SLACK_BOT_TOKEN: z
    .string()
    .startsWith("xoxb-", { error: 'expected the bot token, starting with "xoxb-"' }),
  /** Basic Information → App Credentials → Signing Secret. */
  SLACK_SIGNING_SECRET: z
    .string()
    .min(16, { error: "expected the app's signing secret (32 hex characters)" }),
});

/** Slack through the Events API: direct messages and @mentions, answered in place. */
export const slackChannel: ChannelModule<
  z.output<typeof configSchema>,
  z.output<typeof envSchema>
> = {
  name: "slack",
  description: "Slack app (Events API): direct messages and @mentions in channels",
  configSchema,
  envSchema,
  create: (config, deps) =>
    new SlackChannel({
      api: new SlackApi({ baseUrl: config.apiBaseUrl, token: deps.env.SLACK_BOT_TOKEN }),
      signingSecret: deps.env.SLACK_SIGNING_SECRET,
      attachments: config.attachments,
      wakingNotice: config.wakingNotice,
      webhookUrl: channelWebhookUrl(deps, "slack"),
      kv: deps.kv,
      logger: deps.logger,
    }),
};

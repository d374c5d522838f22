import { z } from "zod";
import { apiBaseUrlSchema } from "../api-base-url";
import { attachmentModeSchema } from "../attachments";
import type { ChannelModule } from "../types";
import { channelWebhookUrl } from "../webhook-url";
import { GraphApi } from "./graph-api";
import { WhatsappChannel } from "./whatsapp-channel";

const numericId = (what: string) =>
  z.string({ error: `expected the ${what} as a string of digits` }).regex(/^\d{5,30}$/, {
    error: `expected the ${what} (digits, from the App Dashboard)`,
  });

const configSchema = z.strictObject({
  /** The Graph API host; change it for a proxy or tests. */
  apiBaseUrl: apiBaseUrlSchema({ host: "https://graph.facebook.com" }),
  /** Graph API version used for every call. */
  apiVersion: z
    .string()
    .regex(/^v\d+\.\d+$/, { error: 'expected a Graph API version like "v24.0"' })
    .default("v24.0"),
  /** Images, voice, files, stickers: described to the agent as text, or refused to the sender. */
  attachments: attachmentModeSchema,
  /** Only messages to this business phone number id (absent: any number of the app). */
  phoneNumberId: numericId("phone number id").optional(),
  /** Only these senders (WhatsApp ids, i.e. phone numbers in digits) reach the agent. */
  allowedSenders: z
    .array(z.string().regex(/^\d{5,20}$/), { error: "expected an array of WhatsApp ids (digits)" })
    .optional(),
  /** The Meta app id: lets ClawRun register and check the webhook (not a secret). */
  appId: numericId("app id").optional(),
  /** The WhatsApp Business Account id: register() subscribes the app to it. */
  businessAccountId: numericId("WhatsApp Business Account id").optional(),
});

const envSchema = z.object({
  /** A System User access token with whatsapp_business_messaging. */
  WHATSAPP_ACCESS_TOKEN: z.string().min(20, { error: "expected an access token from Meta" }),
  /** App Dashboard → App settings → Basic → App secret (signs every webhook). */
  WHATSAPP_APP_SECRET: z.string().min(16, { error: "expected the app secret (32 hex digits)" }),
  /** Any string you choose; typed into the App Dashboard's webhook form. */
  WHATSAPP_VERIFY_TOKEN: z.string().min(16, { error: "expected at least 16 characters" }),
});

/** A WhatsApp Business number (Cloud API webhooks). */
export const whatsappChannel: ChannelModule<
  z.output<typeof configSchema>,
  z.output<typeof envSchema>
> = {
  name: "whatsapp",
  description: "a WhatsApp Business number: messages to it wake the agent, replies come from it",
  configSchema,
  envSchema,
  create: (config, deps) =>
    new WhatsappChannel({
      api: new GraphApi({
        baseUrl: config.apiBaseUrl,
        version: config.apiVersion,
        accessToken: deps.env.WHATSAPP_ACCESS_TOKEN,
      }),
      appSecret: deps.env.WHATSAPP_APP_SECRET,
      verifyToken: deps.env.WHATSAPP_VERIFY_TOKEN,
      webhookUrl: channelWebhookUrl(deps, "whatsapp"),
      attachments: config.attachments,
      phoneNumberId: config.phoneNumberId,
      allowedSenders: config.allowedSenders,
      appId: config.appId,
      businessAccountId: config.businessAccountId,
      kv: deps.kv,
      clock: deps.clock,
      logger: deps.logger,
    }),
};

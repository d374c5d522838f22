import { z } from "zod";
import type { ChannelModule } from "../types";
import { channelWebhookUrl } from "../webhook-url";
import { GenericChannel } from "./generic-channel";

const configSchema = z.strictObject({
  /** Replies to queued messages are POSTed here, signed like incoming webhooks. */
  replyUrl: z.url({ error: "expected an http(s) URL" }).optional(),
});

const envSchema = z.object({
  /** One of ClawRun's own secrets: generated locally, set on Vercel. */
  CLAWRUN_WEBHOOK_SECRET: z.string().min(16),
});

/** ClawRun's own signed webhook: for scripts, other services, and tests. */
export const genericChannel: ChannelModule<
  z.output<typeof configSchema>,
  z.output<typeof envSchema>
> = {
  name: "generic",
  description: "a signed JSON webhook for your own services and scripts",
  configSchema,
  envSchema,
  create: (config, deps) =>
    new GenericChannel({
      secret: deps.env.CLAWRUN_WEBHOOK_SECRET,
      replyUrl: config.replyUrl,
      webhookUrl: channelWebhookUrl(deps, "generic"),
      clock: deps.clock,
    }),
};

import { discordChannel } from "./discord";
import { genericChannel } from "./generic";
import { slackChannel } from "./slack";
import { telegramChannel } from "./telegram";
import type { ChannelModule } from "./types";
import { whatsappChannel } from "./whatsapp";

/**
 * Every chat channel ClawRun ships, one line each. The clawrun.json `channels` section and
 * the webhook route accept exactly these names; adding a channel is a folder beside this
 * file and a line here (docs/architecture.md walks through it).
 */
export const CHANNELS: readonly ChannelModule[] = [
  genericChannel,
  telegramChannel,
  slackChannel,
  discordChannel,
  whatsappChannel,
];

export function findChannel(name: string): ChannelModule | undefined {
  return CHANNELS.find((c) => c.name === name);
}

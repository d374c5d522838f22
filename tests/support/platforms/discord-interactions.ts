import { randomBytes } from "node:crypto";
import {
  type APIApplicationCommandInteractionDataOption,
  type APIChatInputApplicationCommandInteraction,
  type APIPingInteraction,
  ApplicationCommandOptionType,
  ApplicationCommandType,
  ChannelType,
  InteractionType,
  Locale,
} from "discord-api-types/v10";

/**
 * Interactions as Discord sends them (typed with discord-api-types), for the Discord
 * stand-in beside this file and for tests that build payloads without it.
 */

export const APPLICATION_ID = "1234567890123456789";

export interface AskSpec {
  id?: string;
  channelId: string;
  userId: string;
  text: string;
  /** In a server (member) or a DM (user). */
  inGuild?: boolean;
  file?: { filename: string; content_type: string; size: number };
  /** Another command name than /ask. */
  command?: string;
}

let snowflakeSeq = 0;
export function snowflake(): string {
  snowflakeSeq += 1;
  return (BigInt(Date.now() - 1420070400000) * 4194304n + BigInt(snowflakeSeq % 4096)).toString();
}

/** A PING, as Discord sends it when checking an endpoint. */
export function pingInteraction(): APIPingInteraction {
  return {
    id: snowflake(),
    application_id: APPLICATION_ID,
    type: InteractionType.Ping,
    token: randomBytes(32).toString("base64url"),
    version: 1,
    app_permissions: "0",
    entitlements: [],
    authorizing_integration_owners: {},
    attachment_size_limit: 10 * 1024 * 1024,
  };
}

/** A /ask (or other chat-input command) interaction, as Discord sends it. */
export function askInteraction(m: AskSpec): APIChatInputApplicationCommandInteraction {
  const id = m.id ?? snowflake();
  const user = {
    id: m.userId,
    username: `user${m.userId.slice(-4)}`,
    discriminator: "0",
    global_name: null,
    avatar: null,
  };
  const options: APIApplicationCommandInteractionDataOption[] = [
    { name: "message", type: ApplicationCommandOptionType.String, value: m.text },
  ];
  const attachmentId = snowflake();
  if (m.file)
    options.push({
      name: "file",
      type: ApplicationCommandOptionType.Attachment,
      value: attachmentId,
    });
  const where =
    m.inGuild === false
      ? { user, context: 1 }
      : {
          guild_id: "987654321098765432",
          member: {
            user,
            roles: [],
            joined_at: new Date(0).toISOString(),
            deaf: false,
            mute: false,
            flags: 0,
            permissions: "0",
          },
          context: 0,
        };
  return {
    id,
    application_id: APPLICATION_ID,
    type: InteractionType.ApplicationCommand,
    data: {
      id: "1111111111111111111",
      name: m.command ?? "ask",
      type: ApplicationCommandType.ChatInput,
      options,
      ...(m.file
        ? {
            resolved: {
              attachments: {
                [attachmentId]: {
                  id: attachmentId,
                  filename: m.file.filename,
                  content_type: m.file.content_type,
                  size: m.file.size,
                  url: `https://cdn.discordapp.com/ephemeral-attachments/1/${attachmentId}/${m.file.filename}`,
                  proxy_url: `https://media.discordapp.net/ephemeral-attachments/1/${attachmentId}/${m.file.filename}`,
                },
              },
            },
          }
        : {}),
    },
    channel: {
      id: m.channelId,
      type: m.inGuild === false ? ChannelType.DM : ChannelType.GuildText,
    },
    channel_id: m.channelId,
    token: randomBytes(48).toString("base64url"),
    version: 1,
    app_permissions: "0",
    locale: Locale.EnglishUS,
    entitlements: [],
    authorizing_integration_owners: {},
    attachment_size_limit: 10 * 1024 * 1024,
    ...where,
  };
}

import { OptionType } from "./interaction";

/** The slash command people use to talk to the agent: `/ask message:<text> [file:<attachment>]`. */
export const ASK_COMMAND_NAME = "ask";
export const ASK_MESSAGE_OPTION = "message";
export const ASK_FILE_OPTION = "file";
/**
 * The longest `/ask` message: the most Discord allows a string option (its docs and
 * discord-api-types: max_length 1 to 6000), so ClawRun adds no limit of its own.
 */
export const ASK_MESSAGE_MAX_LENGTH = 6000;

/**
 * The command as registered with Discord (Create Global Application Command; creating one
 * with an existing name updates it). Usable in servers, in DMs with the bot and in private
 * channels (contexts 0, 1, 2) when installed to a server or a user (integration types 0, 1).
 */
export const ASK_COMMAND = {
  name: ASK_COMMAND_NAME,
  type: 1,
  description: "Ask the agent something",
  options: [
    {
      type: OptionType.String,
      name: ASK_MESSAGE_OPTION,
      description: "What to say to the agent",
      required: true,
      max_length: ASK_MESSAGE_MAX_LENGTH,
    },
    {
      type: OptionType.Attachment,
      name: ASK_FILE_OPTION,
      description: "A file to go with it (the agent is told about it)",
      required: false,
    },
  ],
  integration_types: [0, 1],
  contexts: [0, 1, 2],
};

import type { AgentModule } from "../types";
import { CommandAgent } from "./command-agent";
import { type CommandAgentConfig, commandConfigSchema } from "./config";

/** Any HTTP daemon of your own: how a user runs their own agent. */
export const commandAgent: AgentModule<CommandAgentConfig> = {
  name: "command",
  description: "any HTTP daemon you bring (command, args, files, delivery path)",
  configSchema: commandConfigSchema,
  create: (config, ctx) => new CommandAgent(config, ctx.env, ctx.projectDir),
};

import { CommandAgent } from "./command-agent";
import { EchoAgent } from "./echo-agent";
import { registerAgent } from "./registry";

export function registerBuiltinAgents(): void {
  registerAgent("echo", (config, ctx) => new EchoAgent(config.port, ctx.env));
  registerAgent("command", (config, ctx) => {
    if (config.type !== "command") throw new Error('command agent needs agent.type "command"');
    return new CommandAgent(config, ctx.env, ctx.projectDir);
  });
}

import { z } from "zod";
import { agentBaseShape } from "../../../config/schema";
import type { AgentModule } from "../types";
import { EchoAgent } from "./echo-agent";

const configSchema = z.strictObject({ type: z.literal("echo"), ...agentBaseShape });

/** ClawRun's reference daemon (src/agent-echo): no AI, no key; the default. */
export const echoAgent: AgentModule<z.output<typeof configSchema>> = {
  name: "echo",
  description: "ClawRun's reference daemon: echoes with a per-conversation count (no AI)",
  configSchema,
  create: (config, ctx) => new EchoAgent(config.port, ctx.env),
};

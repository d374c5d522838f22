import { resolveModelKey, toModelChoice } from "../model-choice";
import type { AgentModule } from "../types";
import { type ZeroClawAgentConfig, zeroclawConfigSchema } from "./config";
import { ZeroClawAgent } from "./zeroclaw-agent";

/** ZeroClaw's pinned release binary, verified by SHA-256 (docs/agents/zeroclaw.md). */
export const zeroclawAgent: AgentModule<ZeroClawAgentConfig> = {
  name: "zeroclaw",
  description: "ZeroClaw (pinned release binary, SHA-256 verified) with the model you choose",
  configSchema: zeroclawConfigSchema,
  create: (config, ctx) => {
    const model = toModelChoice(config);
    return new ZeroClawAgent({
      model,
      port: config.port,
      deliveryTimeoutMs: config.deliveryTimeoutMs,
      modelApiKey: resolveModelKey(model, ctx.passthrough),
      gatewayToken: ctx.deriveSecret("zeroclaw/gateway-token"),
      env: ctx.env,
    });
  },
};

import { requireGatewayUrl, resolveModelKey, toModelChoice } from "../model-choice";
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
    // Checked here so an unset key fails at start; the key itself stays in ClawRun, whose
    // model gateway uses it (docs/model-gateway.md).
    resolveModelKey(model, ctx.passthrough);
    return new ZeroClawAgent({
      model,
      port: config.port,
      deliveryTimeoutMs: config.deliveryTimeoutMs,
      gatewayUrl: requireGatewayUrl(ctx.modelGatewayUrl),
      gatewayToken: ctx.deriveSecret("zeroclaw/gateway-token"),
      env: ctx.env,
    });
  },
};

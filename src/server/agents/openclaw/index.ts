import { requireGatewayUrl, resolveModelKey, toModelChoice } from "../model-choice";
import type { AgentModule } from "../types";
import { type OpenClawAgentConfig, openclawConfigSchema } from "./config";
import { OpenClawAgent } from "./openclaw-agent";

/** OpenClaw from the npm registry, pinned (docs/agents/openclaw.md). */
export const openclawAgent: AgentModule<OpenClawAgentConfig> = {
  name: "openclaw",
  description: "OpenClaw (npm openclaw, pinned) with the model you choose; installs on first start",
  configSchema: openclawConfigSchema,
  create: (config, ctx) => {
    const model = toModelChoice(config);
    // Checked here so an unset key fails at start; the key itself stays in ClawRun, whose
    // model gateway uses it (docs/model-gateway.md).
    resolveModelKey(model, ctx.passthrough);
    return new OpenClawAgent({
      model,
      port: config.port,
      deliveryTimeoutMs: config.deliveryTimeoutMs,
      gatewayUrl: requireGatewayUrl(ctx.modelGatewayUrl),
      // Per sandbox: a token leaked from one sandbox opens no other (never persisted).
      gatewayToken: (sandboxId) => ctx.deriveSecret(`openclaw/gateway-token/${sandboxId}`),
      env: ctx.env,
      ...(config.npmCacheDir === undefined ? {} : { npmCacheDir: config.npmCacheDir }),
    });
  },
};

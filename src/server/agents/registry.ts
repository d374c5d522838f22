import type { AgentConfig } from "../../config/schema";
import type { Agent } from "./types";

/** What an agent factory receives from the composition root. */
export interface AgentContext {
  /** The daemon's environment with `{ "fromEnv" }` references resolved. */
  env: Record<string, string>;
  projectDir: string;
}

export type AgentFactory = (config: AgentConfig, ctx: AgentContext) => Agent;

const factories = new Map<string, AgentFactory>();

export function registerAgent(type: string, factory: AgentFactory): void {
  factories.set(type, factory);
}

export function createAgent(config: AgentConfig, ctx: AgentContext): Agent {
  const factory = factories.get(config.type);
  if (!factory) {
    const known = [...factories.keys()].sort().join(", ") || "(none)";
    throw new Error(`unknown agent type "${config.type}"; registered agents: ${known}`);
  }
  return factory(config, ctx);
}

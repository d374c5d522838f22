import { commandAgent } from "./command";
import { echoAgent } from "./echo";
import { openclawAgent } from "./openclaw";
import type { AgentModule } from "./types";
import { zeroclawAgent } from "./zeroclaw";

/**
 * Every agent type ClawRun ships, one line each: `agent.type` in clawrun.json accepts exactly
 * these. Adding an agent is a folder beside this file and a line here.
 */
export const AGENTS: readonly AgentModule[] = [
  echoAgent,
  commandAgent,
  openclawAgent,
  zeroclawAgent,
];

export function findAgent(type: string): AgentModule | undefined {
  return AGENTS.find((a) => a.name === type);
}

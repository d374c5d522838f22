import { usageError } from "./exit-codes";

/**
 * Pure: which agent of a deployment a command speaks to (docs/cli.md, "Several agents"), and
 * the paths that reach it. Without a name the plain routes serve the deployment's default
 * agent; agent NAME's operator API is `/api/agents/NAME/<path after /api>` and its generic
 * webhook `/api/webhooks/generic/NAME` (docs/api.md, "Several agents").
 */

export interface AgentChoice {
  name: string;
  /** Where it came from, for messages: "--agent" or "CLAWRUN_AGENT". */
  source: string;
}

/**
 * `--agent`, else CLAWRUN_AGENT, else none (the default agent). The name is not checked
 * against AGENT_NAME_PATTERN: the default agent is named like `instance.name`, which allows
 * more, and the server's 404 lists the agents it has. An empty `--agent` is a mistake;
 * an empty variable is unset, as for the CLI's other variables.
 */
export function pickAgent(flag: string | undefined, env: string | undefined): AgentChoice | null {
  if (flag !== undefined) {
    const name = flag.trim();
    if (!name) throw usageError(`--agent needs an agent's name (got "${flag}")`);
    return { name, source: "--agent" };
  }
  const fromEnv = env?.trim();
  return fromEnv ? { name: fromEnv, source: "CLAWRUN_AGENT" } : null;
}

/**
 * An operator path for the agent: `/api/sandbox…` → `/api/agents/NAME/sandbox…`. Other paths
 * (the fleet, `/api/agents`) belong to the deployment and stay as they are.
 */
export function agentApiPath(path: string, agent: string | null): string {
  if (agent === null || !/^\/api\/sandbox(?=[/?]|$)/.test(path)) return path;
  return `/api/agents/${encodeURIComponent(agent)}${path.slice("/api".length)}`;
}

/** The generic webhook of the agent (the default one's has no name). */
export function genericWebhookPath(agent: string | null): string {
  return agent === null
    ? "/api/webhooks/generic"
    : `/api/webhooks/generic/${encodeURIComponent(agent)}`;
}

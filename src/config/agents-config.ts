/**
 * Pure: several agents in one clawrun.json (docs/several-agents.md). The top-level
 * sections are shared defaults; `agents.<name>` is laid over them as a JSON merge patch
 * (RFC 7396: objects merge key by key, `null` removes a key, anything else replaces), except
 * that an `agent` section of another `type` replaces the default one whole, since its keys
 * belong to another agent type. A file without `agents` is one agent named `instance.name`.
 */

/** DNS-label-like, so a name fits a URL path, an environment variable suffix and a store key. */
export const AGENT_NAME_PATTERN = /^[a-z0-9]([a-z0-9-]{0,30}[a-z0-9])?$/;
export const AGENT_NAME_RULE =
  "1-32 lowercase letters, digits or '-', starting and ending with a letter or digit";

/** The sections an agent may set for itself; the rest (`instance`) belongs to the deployment. */
export const AGENT_SECTIONS = ["agent", "sandbox", "channels", "cron", "modelGateway"] as const;

export interface AgentEntry {
  name: string;
  /** The agent's clawrun.json as if it were the only agent: defaults merged with its entry. */
  raw: Record<string, unknown>;
  /** Prefix of its store keys and sandbox names: unchanged for the agent named `instance.name`. */
  storeName: string;
  /** The agent the routes without an agent name serve (webhooks, heartbeats, the operator API). */
  isDefault: boolean;
  /**
   * True for the agent named `instance.name` (a one-agent file's): it keeps the deployment's
   * store keys, CLAWRUN_SECRET, unsuffixed variables and URLs. Every other agent has its own.
   */
  deploymentKeys: boolean;
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json =>
  typeof v === "object" && v !== null && !Array.isArray(v);

export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return patch;
  const out: Json = isObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key];
    else out[key] = mergePatch(out[key], value);
  }
  return out;
}

/**
 * The agents a parsed file declares, in file order. The deployment's keys (`instance`,
 * `$schema`) stay out of each agent's own file; `instance.name` is the deployment's, so that
 * two deployments sharing one Redis keep apart.
 */
export function agentEntries(raw: unknown, instanceName: string): AgentEntry[] {
  const file = isObject(raw) ? raw : {};
  const { agents, ...defaults } = file;
  if (!isObject(agents) || Object.keys(agents).length === 0) {
    return [
      {
        name: instanceName,
        raw: defaults,
        storeName: instanceName,
        isDefault: true,
        deploymentKeys: true,
      },
    ];
  }
  const names = Object.keys(agents);
  const defaultName = names.includes(instanceName) ? instanceName : names[0];
  return names.map((name) => {
    const entry = isObject(agents[name]) ? agents[name] : {};
    const merged = mergePatch(defaults, entry) as Json;
    const own = entry.agent;
    if (isObject(own) && isObject(defaults.agent) && own.type !== undefined) {
      if (own.type !== defaults.agent.type) merged.agent = own;
    }
    return {
      name,
      raw: merged,
      storeName: name === instanceName ? instanceName : `${instanceName}--${name}`,
      isDefault: name === defaultName,
      deploymentKeys: name === instanceName,
    };
  });
}

/** The suffix of an agent's own environment variables: `TELEGRAM_BOT_TOKEN__TEAM_BOT`. */
export function agentEnvSuffix(name: string): string {
  return `__${name.toUpperCase().replaceAll("-", "_")}`;
}

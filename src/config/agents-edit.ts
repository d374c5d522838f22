import {
  AGENT_NAME_PATTERN,
  AGENT_NAME_RULE,
  type AgentEntry,
  agentEntries,
  agentEnvSuffix,
} from "./agents-config";

/**
 * Pure: what `clawrun agents add|rm` do to a parsed clawrun.json, and what `agents list`
 * shows of it (docs/several-agents.md, docs/cli.md "clawrun agents"). Each edit answers the
 * whole new file or a refusal in words; the caller validates the new file as the server
 * would (`validate`) and writes it, so a refused or invalid edit changes nothing.
 */

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** The server's own validation of a whole file: one line per problem, none when valid. */
export type Validate = (file: Json) => string[];

export type EditResult<T = object> =
  | ({ ok: true; file: Json } & T)
  | { ok: false; message: string; problems?: string[] };

/** The server's refusal of a new file, or null when it would accept it. */
function refusedBy(
  validate: Validate,
  next: Json,
): { ok: false; message: string; problems: string[] } | null {
  const problems = validate(next);
  if (problems.length === 0) return null;
  return { ok: false, message: "the new clawrun.json would be invalid, nothing changed", problems };
}

/** `instance.name` as the schema defaults it. */
export function instanceNameOf(file: Json): string {
  const instance = file.instance;
  return isObject(instance) && typeof instance.name === "string" ? instance.name : "clawrun";
}

/** The agents' entries as written (a file without `agents` has none). */
function entriesOf(file: Json): Json {
  return isObject(file.agents) ? file.agents : {};
}

function names(file: Json): string[] {
  return agentEntries(file, instanceNameOf(file)).map((a) => a.name);
}

export interface AddRequest {
  name: string;
  /** `agent.type` of the new agent; absent: the shared default's (or the copied agent's). */
  type?: string;
  /** Start from this agent's own entry (its overrides of the shared defaults). */
  copyFrom?: string;
}

/**
 * Adds an agent. A file without `agents` first names its one agent `instance.name` inside
 * `agents`, so that agent keeps its store keys, secrets, variables and URLs
 * (docs/several-agents.md, "Moving an existing agent into `agents`").
 */
export function addAgent(
  file: Json,
  req: AddRequest,
  validate: Validate,
): EditResult<{ entry: Json; movedExisting: string | null }> {
  if (!AGENT_NAME_PATTERN.test(req.name)) {
    return {
      ok: false,
      message: `"${req.name}" is not an agent name: expected ${AGENT_NAME_RULE} (e.g. "team-bot")`,
    };
  }
  const existing = names(file);
  if (existing.includes(req.name)) {
    return {
      ok: false,
      message: `an agent named "${req.name}" already exists (agents: ${existing.join(", ")})`,
    };
  }
  const current = entriesOf(file);
  const single = Object.keys(current).length === 0;
  let entry: Json = {};
  if (req.copyFrom !== undefined) {
    if (!existing.includes(req.copyFrom)) {
      return {
        ok: false,
        message: `--copy-from: no agent named "${req.copyFrom}" (agents: ${existing.join(", ")})`,
      };
    }
    // A one-agent file's agent is the shared defaults themselves: its entry is empty.
    const source = current[req.copyFrom];
    entry = isObject(source) ? structuredClone(source) : {};
  }
  if (req.type !== undefined) {
    const own = entry.agent;
    // Same type: keep the copied settings; another type: its keys belong to another agent.
    entry.agent = isObject(own) && own.type === req.type ? own : { type: req.type };
  }
  const movedExisting = single ? (existing[0] as string) : null;
  const agents: Json = single ? { [movedExisting as string]: {} } : { ...current };
  agents[req.name] = entry;
  const next: Json = { ...file, agents };
  const invalid = refusedBy(validate, next);
  if (invalid) return invalid;
  return { ok: true, file: next, entry, movedExisting };
}

/**
 * Removes an agent's entry. The last agent cannot go (a deployment runs at least one); the
 * agent named `instance.name` may, and the plain routes then serve the next default.
 */
export function removeAgent(
  file: Json,
  name: string,
  validate: Validate,
): EditResult<{ wasDefault: boolean; newDefault: string }> {
  const before = agentEntries(file, instanceNameOf(file));
  const gone = before.find((a) => a.name === name);
  if (!gone) {
    return {
      ok: false,
      message: `no agent named "${name}" in the file (agents: ${before.map((a) => a.name).join(", ")})`,
    };
  }
  if (before.length === 1) {
    return {
      ok: false,
      message: `"${name}" is the only agent: a deployment runs at least one (add another first)`,
    };
  }
  const { [name]: _removed, ...agents } = entriesOf(file);
  const next: Json = { ...file, agents };
  const invalid = refusedBy(validate, next);
  if (invalid) return invalid;
  const after = agentEntries(next, instanceNameOf(next));
  const newDefault = (after.find((a) => a.isDefault) as AgentEntry).name;
  return { ok: true, file: next, wasDefault: gone.isDefault, newDefault };
}

export interface AgentRow {
  name: string;
  /** `agent.type` after the merge with the shared defaults. */
  type: string;
  isDefault: boolean;
  /** Named like `instance.name`: the deployment's store keys, secret and unsuffixed variables. */
  deploymentKeys: boolean;
  /** Where its chat platforms post: `/api/webhooks/<channel>` + this. */
  webhookSuffix: string;
  channels: { name: string; webhookPath: string; env: string[] }[];
}

/**
 * One row per agent in file order. `channelEnv` names a channel's own variables (its envSchema,
 * without ClawRun's shared secrets); an agent other than the one named `instance.name` reads
 * them with its suffix (`TELEGRAM_BOT_TOKEN__TEAM`), as the server does (compose/context.ts).
 */
export function agentRows(file: Json, channelEnv: (channel: string) => string[]): AgentRow[] {
  return agentEntries(file, instanceNameOf(file)).map((a) => {
    const agent = a.raw.agent;
    const type = isObject(agent) && typeof agent.type === "string" ? agent.type : "echo";
    // The schema's default when `channels` is absent is the generic webhook alone.
    const channels = isObject(a.raw.channels) ? Object.keys(a.raw.channels) : ["generic"];
    const suffix = a.deploymentKeys ? "" : `/${a.name}`;
    const envSuffix = a.deploymentKeys ? "" : agentEnvSuffix(a.name);
    return {
      name: a.name,
      type,
      isDefault: a.isDefault,
      deploymentKeys: a.deploymentKeys,
      webhookSuffix: suffix,
      channels: channels.map((c) => ({
        name: c,
        webhookPath: `/api/webhooks/${c}${suffix}`,
        env: channelEnv(c).map((n) => `${n}${envSuffix}`),
      })),
    };
  });
}

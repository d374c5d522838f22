import { relative } from "node:path";
import { type AgentEntry, agentEntries } from "../../config/agents-config";
import { formatIssues } from "../../config/format-issues";
import { ConfigError, type LoadedConfig, loadConfig, parseConfig } from "../../config/load-config";
import { buildConfigSchema, type ClawrunConfig } from "../../config/schema";
import { AGENTS } from "../agents";
import { CHANNELS } from "../channels";
import { PROVIDERS } from "../providers";

/** clawrun.json's schema, assembled from the provider, agent and channel lists. */
export const clawrunConfigSchema = buildConfigSchema({
  providers: PROVIDERS,
  agents: AGENTS,
  channels: CHANNELS,
});

/** Parses a config object (tests and benches build configs this way). */
export function parseClawrunConfig(value: unknown): ClawrunConfig {
  return clawrunConfigSchema.parse(value) as unknown as ClawrunConfig;
}

/** Parses clawrun.json text (comments allowed); throws ConfigError with one line per problem. */
export function parseConfigText(text: string, source = "clawrun.json") {
  return parseConfig(clawrunConfigSchema, text, source);
}

/** Reads clawrun.json; a missing file means all defaults (the zero-setup local run). */
export function loadClawrunConfig(path: string): LoadedConfig {
  return loadConfig(clawrunConfigSchema, path);
}

/** One agent of the deployment: its entry and its config as if it were the only agent. */
export interface AgentConfig extends AgentEntry {
  loaded: LoadedConfig;
}

/**
 * Each agent's config (src/config/agents-config.ts), all checked before any is used: a bad
 * entry is a ConfigError naming the agent and the key, and no agent starts until all are valid.
 */
export function agentConfigs(file: LoadedConfig): AgentConfig[] {
  const source = file.path ? relative(process.cwd(), file.path) || file.path : "clawrun.json";
  const entries = agentEntries(file.raw, file.config.instance.name);
  if (Object.keys(file.config.agents ?? {}).length === 0) {
    return entries.map((entry) => ({ ...entry, loaded: withoutAgents(file) }));
  }
  const problems: string[] = [];
  const out: AgentConfig[] = [];
  for (const entry of entries) {
    const result = clawrunConfigSchema.safeParse(entry.raw, { reportInput: true });
    if (!result.success) {
      problems.push(...formatIssues(`${source}: agents.${entry.name}`, result.error.issues));
      continue;
    }
    const config = result.data as unknown as ClawrunConfig;
    config.instance = { name: entry.storeName };
    out.push({ ...entry, loaded: { config, path: file.path, raw: entry.raw } });
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return out;
}

function withoutAgents(file: LoadedConfig): LoadedConfig {
  const { agents: _agents, ...config } = file.config;
  return { ...file, config };
}

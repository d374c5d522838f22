import { type LoadedConfig, loadConfig, parseConfig } from "../../config/load-config";
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

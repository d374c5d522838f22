import type { z } from "zod";
import type { AppEnv } from "../../config/env";
import type { LoadedConfig } from "../../config/load-config";
import { secretPaths } from "../../config/secret-paths";

export interface ConfigRow {
  key: string;
  value: string;
  /** "clawrun.json", "default", or "environment (NAME)". */
  source: string;
}

/**
 * Pure: the effective configuration as rows, saying where each value came from. Values that
 * could be secrets (agent env) are never shown, only that they are set and from where.
 */
export function effectiveConfig(loaded: LoadedConfig, env: AppEnv, schema: z.ZodType): ConfigRow[] {
  const rows: ConfigRow[] = [];
  const file = loaded.path ? "clawrun.json" : "default";
  // Values the schema marks secret are said to be set, never shown (src/config/secret-paths.ts).
  const hidden = new Set(secretPaths(schema, loaded.config));
  const walk = (value: unknown, raw: unknown, path: string[]) => {
    const key = path.join(".");
    if (hidden.has(key)) {
      const shown =
        typeof value === "object" && value && "fromEnv" in value
          ? `(from environment ${(value as { fromEnv: string }).fromEnv})`
          : "(set)";
      rows.push({ key, value: shown, source: raw === undefined ? "default" : file });
      return;
    }
    if (value && typeof value === "object" && !Array.isArray(value)) {
      for (const [k, v] of Object.entries(value)) {
        walk(v, raw && typeof raw === "object" ? (raw as Record<string, unknown>)[k] : undefined, [
          ...path,
          k,
        ]);
      }
      return;
    }
    rows.push({ key, value: JSON.stringify(value), source: raw === undefined ? "default" : file });
  };
  const { $schema: _ignored, ...config } = loaded.config;
  walk(config, loaded.raw, []);

  const storeSource =
    env.store.kind === "upstash"
      ? `environment (${env.store.source}_URL)`
      : env.store.kind === "redis-tcp"
        ? "environment (REDIS_URL)"
        : "default";
  rows.push({ key: "store", value: env.store.kind, source: storeSource });
  rows.push({
    key: "publicUrl",
    value: env.publicUrl ?? "(unset)",
    source: "CLAWRUN_PUBLIC_URL or default",
  });
  rows.push({ key: "stateDir", value: env.stateDir, source: "CLAWRUN_STATE_DIR or default" });
  for (const name of Object.keys(env.timingOverrides)) {
    rows.push({
      key: `timings.${name}`,
      value: String(env.timingOverrides[name as keyof typeof env.timingOverrides]),
      source: "environment (CLAWRUN_TIMINGS)",
    });
  }
  return rows;
}

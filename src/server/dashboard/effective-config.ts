import type { AppEnv } from "../../config/env";
import type { LoadedConfig } from "../../config/load-config";

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
export function effectiveConfig(loaded: LoadedConfig, env: AppEnv): ConfigRow[] {
  const rows: ConfigRow[] = [];
  const file = loaded.path ? "clawrun.json" : "default";
  const walk = (value: unknown, raw: unknown, path: string[]) => {
    const key = path.join(".");
    if (path[0] === "agent" && path[1] === "env") {
      for (const [name, v] of Object.entries(value as Record<string, unknown>)) {
        const shown =
          typeof v === "object" && v && "fromEnv" in v
            ? `(from environment ${(v as { fromEnv: string }).fromEnv})`
            : "(set)";
        rows.push({ key: `${key}.${name}`, value: shown, source: file });
      }
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

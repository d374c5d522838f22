import { STORE_DEFAULTS, type StoreOptions } from "./types";

/**
 * How long a sandbox's last heartbeat is kept after it falls silent. Sandboxes are replaced
 * over time; without this their heartbeats would pile up forever. A week is far beyond any
 * replay window, so forgetting one never lets a replay through.
 */
export const HEARTBEAT_RETENTION_MS = 7 * 24 * 60 * 60_000;

export type ResolvedStoreOptions = Required<StoreOptions>;

/** Applies defaults and checks the instance name, which prefixes every key and row. */
export function resolveStoreOptions(options: StoreOptions): ResolvedStoreOptions {
  // The config schema already limits names to letters, digits, '-' and '_'; re-checked here
  // because a ':' would let one instance's redis keys collide with another's.
  if (!/^[A-Za-z0-9_-]+$/.test(options.instance)) {
    throw new Error(
      `store: instance name must be letters, digits, '-' or '_' (got ${JSON.stringify(options.instance)})`,
    );
  }
  const positive = (name: string, v: number) => {
    if (!Number.isSafeInteger(v) || v <= 0)
      throw new Error(`store: ${name} must be a positive integer`);
    return v;
  };
  return {
    instance: options.instance,
    eventCap: positive("eventCap", options.eventCap ?? STORE_DEFAULTS.eventCap),
    intervalCap: positive("intervalCap", options.intervalCap ?? STORE_DEFAULTS.intervalCap),
    dedupeWindowMs: positive(
      "dedupeWindowMs",
      options.dedupeWindowMs ?? STORE_DEFAULTS.dedupeWindowMs,
    ),
  };
}

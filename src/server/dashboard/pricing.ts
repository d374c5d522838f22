/**
 * Store list prices the dashboard's cost card uses (a provider's own prices come from its
 * module's `cost()`). They change: each set carries the date it was read and where.
 */

/** Upstash Redis pay-as-you-go: per command (list price $0.20 per 100,000). */
export const UPSTASH_PRICES = {
  asOf: "2026-11-09",
  source: "https://upstash.com/pricing/redis",
  perCommand: 0.2 / 100_000,
} as const;

/**
 * Store commands one heartbeat costs on Redis (docs/store.md, measured: evalsha, hget, hmget,
 * hset, pexpire). Heartbeats dominate the store traffic of an awake agent.
 */
export const REDIS_COMMANDS_PER_HEARTBEAT = 5;

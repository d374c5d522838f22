import { join } from "node:path";
import type { StoreSettings } from "../../config/env";
import { tcpConnection, upstashConnection } from "./redis/client";
import { RedisStore } from "./redis/store";
import { SqliteStore } from "./sqlite/store";
import type { Store, StoreOptions } from "./types";

export { StoreDataError, StoreUnavailableError } from "./types";

export const VERCEL_NEEDS_REDIS =
  "ClawRun on Vercel needs Upstash Redis: set UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN (or KV_REST_API_URL and KV_REST_API_TOKEN from the Vercel Marketplace)";

/**
 * Picks the adapter: Redis settings → redis (REST for Upstash, TCP for REDIS_URL); none on
 * Vercel → an error (function instances share no disk); none elsewhere → the sqlite file
 * `<stateDir>/store.db`. Nothing connects until the first operation.
 */
export function createStore(
  settings: StoreSettings,
  opts: StoreOptions & { stateDir: string; onVercel: boolean },
): Store {
  const { stateDir, onVercel, ...storeOptions } = opts;
  switch (settings.kind) {
    case "upstash":
      return new RedisStore(upstashConnection(settings.url, settings.token), storeOptions);
    case "redis-tcp":
      return new RedisStore(tcpConnection(settings.url), storeOptions);
    case "sqlite":
      if (onVercel) throw new Error(VERCEL_NEEDS_REDIS);
      return new SqliteStore(join(stateDir, "store.db"), storeOptions);
  }
}

import type { Redis } from "@upstash/redis";
import type { z } from "zod";
import {
  type InstanceState,
  instanceStateSchema,
  type Versioned,
} from "../../domain/instance-state";
import type { ResolvedStoreOptions } from "../store-options";
import { parseStoredJson, parseStoredVersion } from "../stored-data";
import type { RedisKeys } from "./keys";

/** What each part of the redis store works through. */
export interface RedisContext {
  readonly redis: Redis;
  readonly keys: RedisKeys;
  readonly opts: ResolvedStoreOptions;
  /** Runs one backend call; failures become StoreUnavailableError, WRONGTYPE a StoreDataError for `key`. */
  call<T>(key: string, fn: () => Promise<T>): Promise<T>;
  /** One raw command (the client's typed helpers deserialize values we keep as text). */
  exec(command: [string, ...(string | number)[]]): Promise<unknown>;
}

/** A reply of the wrong shape means the server is not running our script: a bug, not bad data. */
export function parseReply<T>(schema: z.ZodType<T>, raw: unknown, op: string): T {
  const result = schema.safeParse(raw);
  if (!result.success) {
    throw new Error(
      `redis store: unexpected reply to ${op}: ${JSON.stringify(raw)?.slice(0, 200)}`,
    );
  }
  return result.data;
}

/** The state hash's two fields as a versioned state (both null: never written). */
export function stateFrom(
  keys: RedisKeys,
  version: string | null,
  value: string | null,
): Versioned<InstanceState> | null {
  if (version === null && value === null) return null;
  return {
    version: parseStoredVersion(version, keys.state),
    value: parseStoredJson(instanceStateSchema, value, keys.state),
  };
}

/** Redis wants whole, positive milliseconds for PX/PEXPIRE. */
export function wholeMs(ms: number): number {
  return Math.max(1, Math.ceil(ms));
}

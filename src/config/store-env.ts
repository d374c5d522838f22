/** Which store ClawRun uses, as the environment names it. */
export type StoreSettings =
  | { kind: "sqlite" }
  /** `source`: the variable name without `_URL` (UPSTASH_REDIS_REST, KV_REST_API, <PREFIX>_KV_REST_API). */
  | { kind: "upstash"; url: string; token: string; source: string }
  | { kind: "redis-tcp"; url: string };

/**
 * Which store the environment names (docs/deploy.md, "The store"). Pure: reads the given
 * variables only. Order: Upstash's own names, the Vercel Marketplace's `KV_REST_API_*`, the
 * same under the prefix a person chose when connecting the store (`<PREFIX>_KV_REST_API_*`),
 * then a TCP `REDIS_URL`. The Marketplace's read-only token is never used: ClawRun writes.
 */
export function selectStore(
  source: Record<string, string | undefined>,
  problems: string[],
): StoreSettings | null {
  const value = (k: string) => {
    const v = source[k]?.trim();
    return v ? v : undefined;
  };
  const pair = (urlKey: string, tokenKey: string, label: string): StoreSettings | null => {
    const url = value(urlKey);
    const token = value(tokenKey);
    if (url && !token) {
      const readOnly = value(tokenKey.replace(/_TOKEN$/, "_READ_ONLY_TOKEN"));
      problems.push(
        `environment: ${urlKey} is set but ${tokenKey} is not (they are a pair)${readOnly ? "; the read-only token cannot be used: ClawRun writes to the store" : ""}`,
      );
    }
    if (token && !url)
      problems.push(`environment: ${tokenKey} is set but ${urlKey} is not (they are a pair)`);
    if (url && !/^https?:\/\/\S+$/.test(url)) {
      problems.push(`environment: ${urlKey}: expected an http(s) URL`);
      return null;
    }
    return url && token ? { kind: "upstash", url, token, source: label } : null;
  };

  const plain =
    pair("UPSTASH_REDIS_REST_URL", "UPSTASH_REDIS_REST_TOKEN", "UPSTASH_REDIS_REST") ??
    pair("KV_REST_API_URL", "KV_REST_API_TOKEN", "KV_REST_API");
  if (plain) return plain;

  const prefixes = Object.keys(source)
    .map((k) => /^([A-Za-z0-9_]*[A-Za-z0-9])_KV_REST_API_(?:URL|TOKEN)$/.exec(k)?.[1])
    .filter((p): p is string => p !== undefined && value(`${p}_KV_REST_API_URL`) !== undefined);
  const unique = [...new Set(prefixes)].sort();
  const chosen = value("CLAWRUN_KV_PREFIX");
  if (chosen !== undefined) {
    const found = pair(
      `${chosen}_KV_REST_API_URL`,
      `${chosen}_KV_REST_API_TOKEN`,
      `${chosen}_KV_REST_API`,
    );
    if (!found && !problems.some((p) => p.includes(`${chosen}_KV_REST_API`)))
      problems.push(
        `environment: CLAWRUN_KV_PREFIX is "${chosen}" but ${chosen}_KV_REST_API_URL and ${chosen}_KV_REST_API_TOKEN are not set`,
      );
    return found;
  }
  if (unique.length > 1) {
    problems.push(
      `environment: several connected stores (${unique.map((p) => `${p}_KV_REST_API_URL`).join(", ")}): set CLAWRUN_KV_PREFIX to the prefix ClawRun should use`,
    );
    return null;
  }
  if (unique.length === 1) {
    const p = unique[0] as string;
    const found = pair(`${p}_KV_REST_API_URL`, `${p}_KV_REST_API_TOKEN`, `${p}_KV_REST_API`);
    if (found) return found;
  }
  const redisUrl = value("REDIS_URL");
  if (redisUrl) {
    if (!/^rediss?:\/\//.test(redisUrl)) {
      problems.push("environment: REDIS_URL: expected a redis:// or rediss:// URL");
      return null;
    }
    return { kind: "redis-tcp", url: redisUrl };
  }
  return null;
}

/** The named error for a deployment on Vercel without a store (function instances share no disk). */
export const VERCEL_STORE_MISSING =
  "environment: no store is connected: on Vercel, attach Upstash Redis from the Vercel Marketplace (it sets KV_REST_API_URL and KV_REST_API_TOKEN), or set UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN, or REDIS_URL";

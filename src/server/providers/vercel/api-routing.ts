import { ProviderError } from "../types";

/**
 * Where SDK requests and sandbox URLs go. The SDK's API base is fixed
 * (`https://vercel.com/api`, see its api-client) and port URLs are
 * `https://<subdomain>.vercel.run`; with CLAWRUN_VERCEL_API_URL set, both are sent to that
 * base instead, through the per-call `fetch` every SDK entry point accepts:
 *   https://vercel.com/api/v2/sandboxes?x   →  <base>/v2/sandboxes?x
 *   https://<sub>.vercel.run                →  <base>/__sandbox/<sub>
 */

export const SDK_API_BASE = "https://vercel.com/api";
const SANDBOX_DOMAIN = /^https:\/\/([a-z0-9-]+)\.vercel\.run$/i;

/** Pure: the URL an SDK request really goes to. */
export function routeApiUrl(url: string, override: string | null): string {
  if (override === null) return url;
  if (
    url !== SDK_API_BASE &&
    !url.startsWith(`${SDK_API_BASE}/`) &&
    !url.startsWith(`${SDK_API_BASE}?`)
  ) {
    // Never send the credentials the SDK attached to a host nobody configured.
    throw new ProviderError(`refusing to route an SDK request to an unexpected URL: ${url}`);
  }
  return `${override}${url.slice(SDK_API_BASE.length)}`;
}

/** Pure: the URL that reaches a sandbox port, from the SDK's domain for it. */
export function routeSandboxDomain(sdkDomain: string, override: string | null): string {
  if (override === null) return sdkDomain;
  const match = SANDBOX_DOMAIN.exec(sdkDomain);
  if (!match) throw new ProviderError(`unexpected sandbox domain from the SDK: ${sdkDomain}`);
  return `${override}/__sandbox/${match[1]}`;
}

/** The `fetch` handed to every SDK call. */
export function sdkFetch(override: string | null): typeof globalThis.fetch {
  if (override === null) return globalThis.fetch;
  return (input, init) => {
    if (input instanceof Request) {
      return globalThis.fetch(new Request(routeApiUrl(input.url, override), input), init);
    }
    const url = typeof input === "string" ? input : input.href;
    return globalThis.fetch(routeApiUrl(url, override), init);
  };
}

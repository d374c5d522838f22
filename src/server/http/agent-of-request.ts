/**
 * Pure: which agent a request is for (docs/several-agents.md), or null for the
 * default one. The operator API and the in-sandbox calls of an agent carry its name in the
 * path (`/api/agents/<name>/…`, `/agents/<name>/api/…`, both routed by next.config.ts), a
 * webhook in its last segment (`/api/webhooks/<channel>/<name>`, a route parameter). Where a
 * platform hands the function the rewritten URL instead, the rewrite's `agent` query says it.
 */
const PREFIXES = [/^\/api\/agents\/([^/]+)(?:\/|$)/, /^\/agents\/([^/]+)\/api(?:\/|$)/];

export function agentOfRequest(url: string, params: unknown): string | null {
  const fromParams = (params as { agent?: unknown } | undefined)?.agent;
  if (typeof fromParams === "string") return fromParams;
  const { pathname, searchParams } = new URL(url);
  for (const prefix of PREFIXES) {
    const match = prefix.exec(pathname);
    if (match) return decodeURIComponent(match[1] as string);
  }
  return searchParams.get("agent");
}

/**
 * Pure: where the operator API of one agent lives (docs/api.md, "Several agents"). The default
 * agent keeps the plain routes; agent NAME's are `/api/agents/NAME/<path after /api>`, and its
 * webhooks `/api/webhooks/<channel>/NAME`. `agent` null means the default agent.
 */
export function agentApiPath(agent: string | null, path: string): string {
  if (agent === null) return path;
  if (!path.startsWith("/api/")) throw new Error(`not an API path: ${path}`);
  return `/api/agents/${encodeURIComponent(agent)}/${path.slice("/api/".length)}`;
}

/** Pure: the generic webhook URL an outside system posts to for this agent. */
export function agentWebhookPath(agent: string | null, channel: string): string {
  const base = `/api/webhooks/${encodeURIComponent(channel)}`;
  return agent === null ? base : `${base}/${encodeURIComponent(agent)}`;
}

import type { ChannelDeps } from "./types";

/** The query parameter Vercel's Deployment Protection lets through (docs/deploy.md). */
export const BYPASS_PARAM = "x-vercel-protection-bypass";

/**
 * Pure: the URL a platform is told to call for this channel, with the agent's name for any
 * agent but the deployment's first (docs/several-agents.md). Platforms cannot send our headers, so
 * with Deployment Protection on the automation bypass rides in the query.
 */
export function channelWebhookUrl(
  deps: Pick<ChannelDeps<unknown>, "publicUrl" | "protectionBypass" | "agent">,
  channel: string,
): string {
  const agent = deps.agent ? `/${deps.agent}` : "";
  const url = `${deps.publicUrl}/api/webhooks/${channel}${agent}`;
  return deps.protectionBypass
    ? `${url}?${BYPASS_PARAM}=${encodeURIComponent(deps.protectionBypass)}`
    : url;
}

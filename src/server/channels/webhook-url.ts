import type { ChannelDeps } from "./types";

/** The query parameter Vercel's Deployment Protection lets through (docs/deploy.md). */
export const BYPASS_PARAM = "x-vercel-protection-bypass";

/**
 * Pure: the URL a platform is told to call for this channel. Platforms cannot send our
 * headers, so with Deployment Protection on the automation bypass rides in the query.
 */
export function channelWebhookUrl(
  deps: Pick<ChannelDeps<unknown>, "publicUrl" | "protectionBypass">,
  channel: string,
): string {
  const url = `${deps.publicUrl}/api/webhooks/${channel}`;
  return deps.protectionBypass
    ? `${url}?${BYPASS_PARAM}=${encodeURIComponent(deps.protectionBypass)}`
    : url;
}

import { liveFeed } from "@/src/server/dashboard/live-feed";
import { operatorRoute } from "@/src/server/http/operator-route";

export const dynamic = "force-dynamic";
/** The feed ends itself before this (FEED_TIMINGS.maxMs in marker-feed.ts); the browser reconnects. */
export const maxDuration = 300;

/** Server-sent events: the overview whenever the state or the event log changes. */
export const GET = operatorRoute(
  "read",
  async (request, ctx) =>
    new Response(liveFeed(ctx, request.signal), {
      headers: {
        "content-type": "text/event-stream; charset=utf-8",
        "cache-control": "no-cache, no-transform",
        "x-accel-buffering": "no",
      },
    }),
);

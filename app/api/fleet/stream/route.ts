import { fleetFeed } from "@/src/server/dashboard/fleet-feed";
import { fleetMembers, fleetSource } from "@/src/server/dashboard/fleet-members";
import { operatorRoute } from "@/src/server/http/operator-route";

export const dynamic = "force-dynamic";
/** The feed ends itself before this (FEED_TIMINGS.maxMs in marker-feed.ts); the browser reconnects. */
export const maxDuration = 300;

/**
 * Server-sent events: every agent's fleet row whenever any agent's event log moves. Not under
 * /api/agents: next.config.ts rewrites /api/agents/<name>/… to that agent's routes.
 */
export const GET = operatorRoute("read", async (request, ctx) => {
  const source = fleetSource(await fleetMembers(), ctx.logger);
  return new Response(fleetFeed(source, request.signal), {
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache, no-transform",
      "x-accel-buffering": "no",
    },
  });
});

import { handleHeartbeatRequest } from "@/src/server/http/heartbeat-handler";
import { route } from "@/src/server/http/route";
import { withLazyTick } from "@/src/server/tick/lazy-tick";

export const dynamic = "force-dynamic";
// Work continues after the response (after()): room for it within the Hobby plan's 300 s.
export const maxDuration = 300;

export const POST = route(async (request, ctx) =>
  withLazyTick(ctx, await handleHeartbeatRequest(request, ctx)),
);

import { after } from "next/server";
import type { AppContext } from "../app-context";
import { getContext } from "../compose/context";
import { agentOfRequest } from "./agent-of-request";
import { errorResponse } from "./errors";

/** A handler answers at once; slow work it returns as `followUp` runs after the response. */
export type RouteResult = Response | { response: Response; followUp: (() => Promise<void>) | null };

/**
 * Every route's plumbing in one place: the context of the agent the request is for
 * (agent-of-request.ts; an unknown agent answers 404, a broken config 503),
 * fault mapping (a down store answers 503), and follow-up work via Next's `after()`.
 */
export function route<P = Record<string, never>>(
  handler: (request: Request, ctx: AppContext, params: P) => Promise<RouteResult>,
) {
  return async (request: Request, context?: { params: Promise<P> }): Promise<Response> => {
    const params = (await context?.params) as P;
    const agent = agentOfRequest(request.url, params);
    const ctx = await getContext(agent ?? undefined).catch((err: unknown) => err as Error);
    if (ctx instanceof Error) return errorResponse(ctx, null);
    try {
      const result = await handler(request, ctx, params);
      if (result instanceof Response) return result;
      const { followUp } = result;
      if (followUp) {
        after(() =>
          followUp().catch((err: unknown) =>
            ctx.logger.error(
              { err: String(err), path: new URL(request.url).pathname },
              "follow-up work failed",
            ),
          ),
        );
      }
      return result.response;
    } catch (err) {
      return errorResponse(err, ctx.logger);
    }
  };
}

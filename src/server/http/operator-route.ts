import type { AppContext } from "../app-context";
import { authorizeOperator } from "../auth/operator";
import { refusalResponse } from "./errors";
import { type RouteResult, route } from "./route";

/**
 * An operator API route: authorization first (session + CSRF for mutations, or the admin
 * bearer), then the handler with the shared route plumbing.
 */
export function operatorRoute<P>(
  kind: "read" | "mutation",
  handler: (request: Request, ctx: AppContext, params: P) => Promise<RouteResult>,
) {
  return route<P>(async (request, ctx, params) => {
    // Sign-in is the deployment's: one session and one lock-out for all its agents.
    const auth = await authorizeOperator(request, ctx.deployment, kind === "mutation");
    return auth.ok ? handler(request, ctx, params) : refusalResponse(auth.refusal);
  });
}

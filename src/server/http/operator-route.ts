import { after } from "next/server";
import { authorizeOperator } from "../auth/operator";
import { type AppContext, getContext } from "../context";
import { errorResponse } from "./errors";

export type OperatorResult = Response | { response: Response; followUp: () => Promise<void> };

/**
 * Wraps an operator API handler: context, authorization (session + CSRF for mutations, or
 * the admin bearer), fault mapping, and long work after the response via `after()`.
 */
export function operatorRoute<P>(
  kind: "read" | "mutation",
  handler: (request: Request, ctx: AppContext, params: P) => Promise<OperatorResult>,
) {
  return async (request: Request, route: { params: Promise<P> }): Promise<Response> => {
    const ctx = await getContext().catch((err: unknown) => err as Error);
    if (ctx instanceof Error) return errorResponse(ctx, null);
    const auth = await authorizeOperator(request, ctx, kind === "mutation");
    if (!auth.ok) return auth.response;
    try {
      const result = await handler(request, ctx, await route.params);
      if (result instanceof Response) return result;
      after(() =>
        result
          .followUp()
          .catch((err: unknown) =>
            ctx.logger.error({ err: String(err) }, "operator action failed"),
          ),
      );
      return result.response;
    } catch (err) {
      return errorResponse(err, ctx.logger);
    }
  };
}

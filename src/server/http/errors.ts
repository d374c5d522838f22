import { NextResponse } from "next/server";
import type { Logger } from "pino";
import { ClawrunError } from "../../protocol/clawrun-error";
import type { Refusal } from "../auth/refusal";
import { StoreUnavailableError } from "../store/types";

/** Every 4xx/5xx is `{ "error": { "code", "message" } }` (docs/api.md). */
export function jsonError(
  status: number,
  code: string,
  message: string,
  headers?: HeadersInit,
): NextResponse {
  return NextResponse.json(
    { error: { code, message } },
    { status, headers: { "cache-control": "no-store", ...headers } },
  );
}

/** An auth/ refusal as the response it answers. */
export function refusalResponse(r: Refusal): NextResponse {
  return jsonError(r.status, r.code, r.message, r.headers);
}

/**
 * The one place errors become responses. A ClawrunError carries its own status and code
 * (bad input 4xx, a down store 503 with retry-after, misconfiguration 503); anything else is
 * a bug: logged with its stack, answered 500 without details.
 */
export function errorResponse(err: unknown, logger: Logger | null): NextResponse {
  if (err instanceof ClawrunError) {
    if (err.status >= 500) logger?.error({ code: err.code, err: err.message }, "request failed");
    const message =
      err instanceof StoreUnavailableError
        ? "the state store is unavailable; retry later"
        : err.message;
    return jsonError(err.status, err.code, message, err.headers);
  }
  logger?.error(
    { err: err instanceof Error ? { message: err.message, stack: err.stack } : String(err) },
    "unhandled error",
  );
  return jsonError(500, "internal", "internal error (see the server log)");
}

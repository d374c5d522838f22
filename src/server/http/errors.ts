import { NextResponse } from "next/server";
import type { Logger } from "pino";
import { EnvError } from "../../config/env";
import { ConfigError } from "../../config/load-config";
import { MissingSecretsError } from "../../config/secrets";
import { StoreDataError, StoreUnavailableError } from "../store/types";
import { BodyTooLargeError } from "./read-body";

/** DESIGN invariant 1: every 4xx/5xx is `{ "error": { "code", "message" } }`. */
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

/** Maps faults to responses: a down store is a retryable 503, never an empty success. */
export function errorResponse(err: unknown, logger: Logger | null): NextResponse {
  if (err instanceof ConfigError || err instanceof EnvError || err instanceof MissingSecretsError) {
    return jsonError(503, "misconfigured", err.message);
  }
  if (err instanceof BodyTooLargeError) return jsonError(413, "payload_too_large", err.message);
  if (err instanceof StoreUnavailableError) {
    logger?.error({ err: err.message }, "store unavailable");
    return jsonError(503, "store_unavailable", "the state store is unavailable; retry later", {
      "retry-after": "5",
    });
  }
  if (err instanceof StoreDataError) {
    logger?.error({ err: err.message }, "invalid stored data");
    return jsonError(500, "store_data_invalid", err.message);
  }
  logger?.error(
    { err: err instanceof Error ? { message: err.message, stack: err.stack } : String(err) },
    "unhandled error",
  );
  return jsonError(500, "internal", "internal error (see the server log)");
}

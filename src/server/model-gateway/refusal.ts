/**
 * Error bodies in the shape each API's clients parse, so an agent shows the message instead of
 * a generic failure. OpenAI: `{ error: { message, type, param, code } }`; Anthropic:
 * `{ type: "error", error: { type, message } }`.
 */

export type ApiShape = "openai" | "anthropic";

export type RefusalKind =
  | "unauthorized"
  | "bad_request"
  | "budget_exceeded"
  | "unpriced_model"
  | "upstream_timeout"
  | "upstream_unreachable"
  | "usage_unrecorded";

const STATUS: Record<RefusalKind, number> = {
  unauthorized: 401,
  bad_request: 400,
  // 429 is what OpenAI itself answers when a quota is exhausted; clients know it.
  budget_exceeded: 429,
  unpriced_model: 403,
  upstream_timeout: 504,
  upstream_unreachable: 502,
  usage_unrecorded: 503,
};

const OPENAI_TYPE: Record<RefusalKind, string> = {
  unauthorized: "invalid_request_error",
  bad_request: "invalid_request_error",
  budget_exceeded: "insufficient_quota",
  unpriced_model: "invalid_request_error",
  upstream_timeout: "server_error",
  upstream_unreachable: "server_error",
  usage_unrecorded: "server_error",
};

const ANTHROPIC_TYPE: Record<RefusalKind, string> = {
  unauthorized: "authentication_error",
  bad_request: "invalid_request_error",
  budget_exceeded: "rate_limit_error",
  unpriced_model: "permission_error",
  upstream_timeout: "api_error",
  upstream_unreachable: "api_error",
  usage_unrecorded: "api_error",
};

export interface Refusal {
  status: number;
  body: unknown;
  headers: Record<string, string>;
}

/** Pure: the response for a refusal; `retryAfterS` becomes a retry-after header. */
export function refusal(
  shape: ApiShape,
  kind: RefusalKind,
  message: string,
  retryAfterS?: number,
): Refusal {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (retryAfterS !== undefined)
    headers["retry-after"] = String(Math.max(1, Math.ceil(retryAfterS)));
  const body =
    shape === "openai"
      ? { error: { message, type: OPENAI_TYPE[kind], param: null, code: kind } }
      : { type: "error", error: { type: ANTHROPIC_TYPE[kind], message } };
  return { status: STATUS[kind], body, headers };
}

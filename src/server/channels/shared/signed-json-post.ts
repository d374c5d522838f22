import type { z } from "zod";
import { parseJsonBody } from "../../body/json-body";
import { type ChannelRequest, ChannelRequestError } from "../types";

/** A 405 unless the request is a POST; `hint` says what the platform sends. */
export function requirePost(req: ChannelRequest, hint: string): void {
  if (req.method !== "POST") throw new ChannelRequestError(405, "method_not_allowed", hint);
}

/** A signature check's verdict, naming why it failed. */
export type SignatureVerdict<R extends string> = { ok: true } | { ok: false; reason: R };

export interface SignedJsonPost<T, R extends string> {
  /** What the platform sends, for the 405. */
  hint: string;
  verify: (req: ChannelRequest) => SignatureVerdict<R>;
  /** The 401's text for each reason a signature fails. */
  failures: Record<R, string>;
  schema: z.ZodType<T>;
  /** The expected body, named in the 400. */
  shape: string;
}

/**
 * How Slack, Discord and the generic webhook start: a POST, then a signature over the raw body
 * (401 naming why it failed), then a JSON body of the expected shape (400 naming it). The order
 * matters: nothing of an unsigned body is parsed.
 */
export function readSignedJsonPost<T, R extends string>(
  req: ChannelRequest,
  o: SignedJsonPost<T, R>,
): T {
  requirePost(req, o.hint);
  const check = o.verify(req);
  if (!check.ok) throw new ChannelRequestError(401, "unauthorized", o.failures[check.reason]);
  return parseJsonBody(req.rawBody, o.schema, o.shape);
}

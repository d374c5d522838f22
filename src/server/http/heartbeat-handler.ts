import { NextResponse } from "next/server";
import { z } from "zod";
import { heartbeatSecret } from "../../protocol/derive-key";
import { HEARTBEAT_MAX_BYTES, parseHeartbeatBody } from "../../protocol/heartbeat";
import {
  SIGNATURE_HEADER,
  TIMESTAMP_HEADER,
  VERIFY_FAILURE_MESSAGES,
  verify,
} from "../../protocol/signing";
import type { AppContext } from "../app-context";
import { parseJsonBody } from "../body/json-body";
import { readBodyLimited } from "../body/read-body";
import { jsonError } from "./errors";

export interface Handled {
  response: Response;
  /** Slow work to run after the response is sent (Next's `after()`). */
  followUp: (() => Promise<void>) | null;
}

/**
 * POST /api/heartbeat. Order: size (413), headers present (401), JSON (400), signature with
 * the sandbox's own derived secret (401: forgeries, other sandboxes' secrets, stale), body
 * schema (400 naming the field), replay (401). Each rejection changes nothing.
 */
export async function handleHeartbeatRequest(
  request: Request,
  ctx: Pick<AppContext, "clock" | "manager" | "secrets">,
): Promise<Handled> {
  const done = (response: Response): Handled => ({ response, followUp: null });
  const raw = await readBodyLimited(request, HEARTBEAT_MAX_BYTES);
  if (!request.headers.get(SIGNATURE_HEADER) || !request.headers.get(TIMESTAMP_HEADER)) {
    const missing = request.headers.get(SIGNATURE_HEADER)
      ? "missing-timestamp"
      : "missing-signature";
    return done(jsonError(401, "unauthorized", VERIFY_FAILURE_MESSAGES[missing]));
  }
  // The sandbox id picks the secret the signature is checked with; the rest waits for it.
  const json = parseJsonBody(raw, sandboxIdOnly, "a heartbeat");
  const { sandboxId } = json;
  const check = verify(
    heartbeatSecret(ctx.secrets.secrets.CLAWRUN_SECRET, sandboxId),
    request.headers,
    raw,
    ctx.clock(),
  );
  if (!check.ok) return done(jsonError(401, "unauthorized", VERIFY_FAILURE_MESSAGES[check.reason]));
  const body = parseHeartbeatBody(json);
  if (!body.ok) return done(jsonError(400, "invalid_body", `heartbeat: ${body.error}`));
  const result = await ctx.manager.handleHeartbeat(body.value, check.timestamp);
  if (result.replay)
    return done(
      jsonError(401, "replayed", "heartbeat is not newer than the last one from this sandbox"),
    );
  return { response: NextResponse.json(result.response), followUp: result.followUp };
}

const sandboxIdOnly = z.looseObject({
  sandboxId: z
    .string({ error: "expected a non-empty string" })
    .min(1, { error: "expected a non-empty string" }),
});

import { NextResponse } from "next/server";
import { formatIssues } from "../../config/format-issues";
import { HEARTBEAT_MAX_BYTES, heartbeatBodySchema } from "../../protocol/heartbeat";
import {
  SIGNATURE_HEADER,
  TIMESTAMP_HEADER,
  VERIFY_FAILURE_MESSAGES,
  verify,
} from "../../protocol/signing";
import { heartbeatSecret } from "../auth/derive-key";
import type { AppContext } from "../context";
import { errorResponse, jsonError } from "./errors";
import { readBodyLimited } from "./read-body";

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
export async function handleHeartbeatRequest(request: Request, ctx: AppContext): Promise<Handled> {
  const done = (response: Response): Handled => ({ response, followUp: null });
  try {
    const raw = await readBodyLimited(request, HEARTBEAT_MAX_BYTES);
    if (!request.headers.get(SIGNATURE_HEADER) || !request.headers.get(TIMESTAMP_HEADER)) {
      return done(
        jsonError(
          401,
          "unauthorized",
          VERIFY_FAILURE_MESSAGES[
            request.headers.get(SIGNATURE_HEADER) ? "missing-timestamp" : "missing-signature"
          ],
        ),
      );
    }
    let json: unknown;
    try {
      json = JSON.parse(raw.toString("utf8"));
    } catch {
      return done(jsonError(400, "invalid_json", "body: expected a JSON object"));
    }
    const sandboxId = (json as { sandboxId?: unknown } | null)?.sandboxId;
    if (typeof sandboxId !== "string" || sandboxId.length === 0) {
      return done(jsonError(400, "invalid_body", "sandboxId: expected a non-empty string"));
    }
    const check = verify(
      heartbeatSecret(ctx.secrets.secrets.CLAWRUN_SECRET, sandboxId),
      request.headers,
      raw,
      ctx.clock(),
    );
    if (!check.ok)
      return done(jsonError(401, "unauthorized", VERIFY_FAILURE_MESSAGES[check.reason]));
    const body = heartbeatBodySchema.safeParse(json, { reportInput: true });
    if (!body.success) {
      return done(
        jsonError(400, "invalid_body", formatIssues("heartbeat", body.error.issues).join("; ")),
      );
    }
    const result = await ctx.manager.handleHeartbeat(body.data, check.timestamp);
    if (result.replay)
      return done(
        jsonError(401, "replayed", "heartbeat is not newer than the last one from this sandbox"),
      );
    return { response: NextResponse.json(result.response), followUp: result.followUp };
  } catch (err) {
    return done(errorResponse(err, ctx.logger));
  }
}

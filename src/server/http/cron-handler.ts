import { NextResponse } from "next/server";
import { bearerToken, secretEquals } from "../../protocol/constant-time";
import type { AppContext } from "../app-context";
import { readBodyLimited } from "../body/read-body";
import { allContexts } from "../compose/context";
import { verifyQStashRequest } from "../cron/qstash-wakes";
import { agentOfRequest } from "./agent-of-request";
import { jsonError } from "./errors";
import type { RouteResult } from "./route";

/** A scheduled wake's body is a few bytes of JSON; anything larger is not one. */
const QSTASH_MAX_BYTES = 16 * 1024;

/**
 * GET /api/cron: Vercel Cron (daily on Hobby) and operators' own schedulers, with
 * `Authorization: Bearer $CRON_SECRET`; runs the reconcile tick and answers its report. Without
 * an agent in the URL it ticks every agent of the deployment (docs/several-agents.md), each on its own,
 * and answers `{ agents: { <name>: report } }` when there are several.
 */
export async function handleCronGet(
  request: Request,
  ctx: Pick<AppContext, "agentName" | "manager" | "secrets">,
): Promise<RouteResult> {
  const token = bearerToken(request.headers.get("authorization"));
  if (!token || !secretEquals(token, ctx.secrets.secrets.CRON_SECRET)) {
    return jsonError(401, "unauthorized", "expected Authorization: Bearer <CRON_SECRET>");
  }
  const agents = agentOfRequest(request.url, undefined) ? [ctx] : await allContexts();
  if (agents.length === 1) return NextResponse.json(await ctx.manager.tick());
  const reports = await Promise.all(
    agents.map(async (a) => {
      const report = await a.manager
        .tick()
        .catch((err: unknown) => ({ error: (err as Error).message }));
      return [a.agentName, report] as const;
    }),
  );
  return NextResponse.json({ agents: Object.fromEntries(reports) });
}

/**
 * POST /api/cron: a scheduled wake from QStash (docs/deploy.md, "Scheduled wakes"), accepted
 * only with a valid `Upstash-Signature`. Answered 202 at once; the tick (which may wake the
 * agent) runs after the response, so QStash is never held for the wake.
 */
export async function handleCronPost(
  request: Request,
  ctx: Pick<AppContext, "env" | "logger" | "manager">,
): Promise<RouteResult> {
  const scheduler = ctx.env.scheduler;
  if (!scheduler) {
    return jsonError(
      401,
      "unauthorized",
      "POST /api/cron takes signed QStash requests, and QSTASH_TOKEN, QSTASH_CURRENT_SIGNING_KEY and QSTASH_NEXT_SIGNING_KEY are not set; use GET with Authorization: Bearer <CRON_SECRET>",
    );
  }
  const body = (await readBodyLimited(request, QSTASH_MAX_BYTES)).toString("utf8");
  const verified = await verifyQStashRequest(
    scheduler,
    request.headers.get("upstash-signature"),
    body,
  );
  if (!verified.ok) {
    return jsonError(401, "unauthorized", `not a verified QStash request: ${verified.reason}`);
  }
  return {
    response: NextResponse.json({ accepted: true }, { status: 202 }),
    followUp: async () => {
      const report = await ctx.manager.tick();
      ctx.logger.info({ actions: report.actions, errors: report.errors }, "scheduled wake");
    },
  };
}

import type { AppContext } from "../app-context";
import { agentModelOf } from "../model-gateway/agent-model";
import {
  credentialHolder,
  holderIsCurrent,
  presentedCredential,
} from "../model-gateway/credential";
import { handleModelCall } from "../model-gateway/forward";
import { type ApiShape, refusal } from "../model-gateway/refusal";
import { gatewayDepsOf, upstreamOf } from "./gateway-from-context";

/** POST /api/model/v1/...: the model gateway's routes hand their request here. */
export async function handleModelRoute(
  request: Request,
  ctx: AppContext,
  shape: ApiShape,
  path: string,
): Promise<Response> {
  const upstream = upstreamOf(ctx);
  if (!upstream) {
    const r = refusal(
      shape,
      "upstream_unreachable",
      "this agent has no model configured (agent.provider, agent.apiKey in clawrun.json), or its key is not set in ClawRun's environment",
    );
    return new Response(JSON.stringify(r.body), { status: 503, headers: r.headers });
  }
  return handleModelCall(request, gatewayDepsOf(ctx, upstream), shape, path);
}

/**
 * GET /api/model/v1/models: the one model this agent is configured with, in OpenAI's list
 * shape (agents probe it at start). Same credential check as a call; nothing is forwarded.
 */
export async function handleModelList(request: Request, ctx: AppContext): Promise<Response> {
  const upstream = upstreamOf(ctx);
  const credential = presentedCredential(request.headers);
  const holder = credential
    ? credentialHolder(ctx.secrets.secrets.CLAWRUN_SECRET, credential)
    : null;
  if (
    !holder ||
    !upstream ||
    !holderIsCurrent((await ctx.store.state.get())?.value ?? null, holder)
  ) {
    const r = refusal("openai", "unauthorized", "invalid model credential");
    return new Response(JSON.stringify(r.body), { status: r.status, headers: r.headers });
  }
  const model = agentModelOf(ctx.config.config.agent)?.model;
  const data =
    typeof model === "string"
      ? [{ id: model, object: "model", created: 0, owned_by: upstream?.kind }]
      : [];
  return Response.json({ object: "list", data });
}

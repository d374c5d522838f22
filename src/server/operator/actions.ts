import { NextResponse } from "next/server";
import { z } from "zod";
import type { AppContext } from "../app-context";
import { jsonError } from "../http/errors";
import type { RouteResult } from "../http/route";
import { TRANSITIONAL } from "../sandbox/plan/status-machine";
import { planWake } from "../sandbox/plan/wake-plan";

export const startBodySchema = z.strictObject({
  fresh: z.boolean().optional(),
  snapshotId: z.string().min(1).max(200).optional(),
});

/**
 * Operator actions return at once with the transition they started (202); the work runs
 * after the response. Preconditions are checked first so a refused action changes nothing.
 */
export async function startAction(
  ctx: Pick<AppContext, "manager" | "provider">,
  body: z.infer<typeof startBodySchema>,
): Promise<RouteResult> {
  const state = (await ctx.manager.getState()).value;
  if (TRANSITIONAL.has(state.status)) return busy(state.status);
  if (state.status === "running" && !body.fresh && !body.snapshotId) {
    return jsonError(409, "already_running", "the agent is already running");
  }
  // A wake the plan would refuse (lost state, a snapshot gone) is refused here, in words,
  // instead of being accepted and failing again out of sight (a failed → failed the page
  // cannot tell apart from nothing).
  const caps = ctx.provider.capabilities;
  const plan = planWake({
    state,
    capabilities: caps,
    snapshots: caps.resumable ? [] : await ctx.provider.listSnapshots(),
    request: body,
  });
  if (plan.kind === "refuse") return jsonError(409, "cannot_wake", plan.reason);
  const reason = body.fresh
    ? "operator: start fresh (snapshots are kept, not restored)"
    : body.snapshotId
      ? `operator: wake from snapshot ${body.snapshotId}`
      : "operator: start";
  return {
    response: accepted(
      body.fresh ? "start-fresh" : "start",
      state.status,
      state.status === "running" ? "snapshotting" : "creating",
    ),
    followUp: async () => {
      await ctx.manager.wakeAndDeliver({
        reason,
        trigger: "operator",
        fresh: body.fresh,
        snapshotId: body.snapshotId,
      });
    },
  };
}

export async function stopAction(ctx: Pick<AppContext, "manager">): Promise<RouteResult> {
  const state = (await ctx.manager.getState()).value;
  if (TRANSITIONAL.has(state.status)) return busy(state.status);
  if (state.status !== "running")
    return jsonError(409, "not_running", `nothing to stop: the agent is ${state.status}`);
  return {
    response: accepted("stop", state.status, "snapshotting"),
    followUp: async () => {
      await ctx.manager.sleep("operator: stop");
    },
  };
}

export async function snapshotAction(ctx: Pick<AppContext, "manager">): Promise<RouteResult> {
  const state = (await ctx.manager.getState()).value;
  if (state.status !== "running")
    return jsonError(409, "not_running", `a snapshot needs a running agent; it is ${state.status}`);
  return {
    response: accepted("snapshot", state.status, "running"),
    followUp: async () => {
      await ctx.manager.snapshotNow();
    },
  };
}

function accepted(action: string, from: string, to: string): Response {
  return NextResponse.json({ action, from, to }, { status: 202 });
}

function busy(status: string): Response {
  return jsonError(
    409,
    "busy",
    `a transition is in progress (${status}); try again when it settles`,
  );
}

import type { SidecarHealth } from "../../protocol/health";
import type { AgentDescription } from "../agents/types";
import type { AppContext } from "../app-context";
import type { StoredHeartbeat } from "../domain/heartbeat-record";
import type { InstanceState } from "../domain/instance-state";
import { sidecarClient } from "../door/sidecar-client";
import { policySettings } from "../sandbox/deps";
import { nextRetryAt } from "../sandbox/plan/policy";
import { TRANSITIONAL } from "../sandbox/plan/status-machine";
import { type AwakeSummary, summarizeAwake } from "./awake-time";
import { forecastFor } from "./forecast-for";

const DAY = 24 * 60 * 60_000;

/** Everything the dashboard's top panels show, in one request (it is polled). */
export interface Overview {
  now: number;
  instance: { name: string; provider: string; agent: string } & InstanceState;
  /** Which agent, version and model runs. */
  agent: AgentDescription;
  transitioning: boolean;
  heartbeat: StoredHeartbeat | null;
  /** Live from the sidecar while running; null otherwise or when it does not answer. */
  sidecar: SidecarHealth | null;
  forecast: { reason: string | null; activeUntil: number } | null;
  /** A failed instance: when messages or cron will next try to wake it (null: not by itself). */
  nextRetryAt: number | null;
  inbox: { pending: number; dead: number };
  cron: { nextDueAt: number | null; nextJob: string | null };
  awake: { day: AwakeSummary; month: AwakeSummary };
  retention: string;
  canWakeFromSnapshot: boolean;
  /**
   * Where a pasted request finds CLAWRUN_WEBHOOK_SECRET (the getting-started curl): the local
   * secrets file's path, or "the environment". Never the value.
   */
  webhookSecret: { from: "file"; file: string } | { from: "environment" };
  settings: { activeDurationMs: number; heartbeatIntervalMs: number; snapshotsKept: number };
}

export async function buildOverview(ctx: AppContext, now = ctx.clock()): Promise<Overview> {
  const state = (await ctx.manager.getState()).value;
  const [heartbeat, inbox, schedule, intervals, sidecar] = await Promise.all([
    state.sandboxId ? ctx.store.heartbeats.get(state.sandboxId) : Promise.resolve(null),
    ctx.store.inbox.count(),
    ctx.store.schedule.get(),
    ctx.store.awake.list(now - 30 * DAY),
    state.sandboxId && (state.status === "running" || state.status === "starting")
      ? sidecarHealth(ctx, state.sandboxId)
      : null,
  ]);
  const settings = policySettings({
    config: ctx.config.config,
    timings: ctx.timings,
    provider: ctx.provider,
  });
  const forecast = forecastFor(state, heartbeat, settings, now);
  const openSince = state.sandboxId ? state.sandboxCreatedAt : null;
  return {
    now,
    instance: {
      name: ctx.config.config.instance.name,
      provider: ctx.provider.name,
      agent: ctx.agent.name,
      ...state,
    },
    agent: ctx.agent.describe?.() ?? { type: ctx.agent.name, version: null, model: null },
    transitioning: TRANSITIONAL.has(state.status),
    heartbeat,
    sidecar,
    forecast,
    nextRetryAt: state.status === "failed" && !state.lost ? nextRetryAt(state, settings) : null,
    inbox,
    cron: { nextDueAt: schedule?.nextDueAt ?? null, nextJob: schedule?.nextJob ?? null },
    awake: {
      day: summarizeAwake(intervals, openSince, now, DAY),
      month: summarizeAwake(intervals, openSince, now, 30 * DAY),
    },
    retention: `${ctx.timings.snapshotsKept} newest snapshots kept`,
    canWakeFromSnapshot: ctx.provider.capabilities.restoreAnySnapshot,
    webhookSecret:
      ctx.env.givenSecrets.CLAWRUN_WEBHOOK_SECRET === undefined
        ? { from: "file", file: ctx.secrets.file }
        : { from: "environment" },
    settings: {
      activeDurationMs: settings.activeDurationMs,
      heartbeatIntervalMs: ctx.timings.heartbeatIntervalMs,
      snapshotsKept: ctx.timings.snapshotsKept,
    },
  };
}

async function sidecarHealth(ctx: AppContext, sandboxId: string): Promise<SidecarHealth | null> {
  try {
    const sandbox = await ctx.provider.get(sandboxId);
    const door = sidecarClient(sandbox, ctx.secrets.secrets.CLAWRUN_SECRET);
    return await door.health(AbortSignal.timeout(1_500));
  } catch {
    return null;
  }
}

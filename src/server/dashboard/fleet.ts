import type { AppContext } from "../app-context";
import type { InstanceStatus } from "../domain/instance-state";
import { policySettings } from "../sandbox/deps";
import { summarizeAwake } from "./awake-time";
import { forecastFor } from "./forecast-for";

const DAY = 24 * 60 * 60_000;

/** One agent's line in the fleet view (docs/several-agents.md, "URLs"). */
export interface FleetRow {
  name: string;
  /** The agent the routes without an agent name serve. */
  isDefault: boolean;
  agent: string;
  provider: string;
  status: InstanceStatus;
  since: number;
  /** Why it is in this status, in the lifecycle's own words (the wake or sleep reason). */
  reason: string;
  error: string | null;
  /** Running: when it goes to sleep if nothing else happens (null before the first heartbeat). */
  activeUntil: number | null;
  pending: number;
  /** Messages given up on (dead letters). */
  failed: number;
  /** Awake time in the last 24 hours. */
  awakeTodayMs: number;
}

/**
 * One agent's row from four store reads at most (state, inbox counts, awake intervals, the
 * heartbeat of a running sandbox) and no provider or door call, so a fleet of 50 stays cheap.
 */
export async function fleetRow(
  ctx: Pick<
    AppContext,
    "agentName" | "agent" | "provider" | "manager" | "store" | "clock" | "config" | "timings"
  >,
  isDefault: boolean,
): Promise<FleetRow> {
  const now = ctx.clock();
  const state = (await ctx.manager.getState()).value;
  const [inbox, intervals, heartbeat] = await Promise.all([
    ctx.store.inbox.count(),
    ctx.store.awake.list(now - DAY),
    state.status === "running" && state.sandboxId
      ? ctx.store.heartbeats.get(state.sandboxId)
      : Promise.resolve(null),
  ]);
  const openSince = state.sandboxId ? state.sandboxCreatedAt : null;
  const settings = policySettings({
    config: ctx.config.config,
    timings: ctx.timings,
    provider: ctx.provider,
  });
  const forecast = forecastFor(state, heartbeat, settings, now);
  return {
    name: ctx.agentName,
    isDefault,
    agent: ctx.agent.name,
    provider: ctx.provider.name,
    status: state.status,
    since: state.since,
    reason: state.reason,
    error: state.error,
    activeUntil: forecast?.activeUntil ?? null,
    pending: inbox.pending,
    failed: inbox.dead,
    awakeTodayMs: summarizeAwake(intervals, openSince, now, DAY).awakeMs,
  };
}

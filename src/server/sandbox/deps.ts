import type { Logger } from "pino";
import type { LifecycleTimings } from "../../config/constants";
import type { ClawrunConfig } from "../../config/schema";
import type { SidecarTimings } from "../../protocol/sidecar-config";
import type { Agent } from "../agents/types";
import type { WakeHook } from "../domain/wake-hook";
import type { WakeScheduler } from "../domain/wake-scheduler";
import type { Inbox } from "../inbox/inbox";
import type { SandboxProvider } from "../providers/types";
import type { Store } from "../store/types";
import type { PolicySettings } from "./plan/policy";
import type { RetentionPolicy } from "./plan/retention";

/** Everything the lifecycle works through: ports only, built by the composition root. */
export interface LifecycleDeps {
  /** Delivery of queued messages, and waiting for deliveries under way. */
  inbox: Inbox;
  /** Every port but counters: the lifecycle reads and writes state, events, heartbeats, inbox, schedule. */
  store: Omit<Store, "counters">;
  provider: SandboxProvider;
  agent: Agent;
  hooks: readonly WakeHook[];
  retention: RetentionPolicy;
  logger: Logger;
  config: ClawrunConfig;
  timings: LifecycleTimings;
  /** CLAWRUN_SECRET: per-sandbox heartbeat secrets are derived from it. */
  masterSecret: string;
  /** Where sidecars send heartbeats. */
  publicUrl: string;
  /** VERCEL_AUTOMATION_BYPASS_SECRET: sidecars send it as a header through Deployment Protection. */
  protectionBypass: string | null;
  clock: () => number;
  /** One-shot wakes for cron jobs while no tick runs (QStash on Vercel); absent: none. */
  wakeScheduler?: WakeScheduler;
  /** Tests only: shortened sidecar timings (restart delay, …); production uses the seed's. */
  sidecarTimings?: Partial<SidecarTimings>;
}

export function policySettings(d: {
  config: ClawrunConfig;
  timings: LifecycleTimings;
  provider: Pick<SandboxProvider, "capabilities">;
}): PolicySettings {
  const s = d.config.sandbox;
  return {
    activeDurationMs: s.activeDuration * 1000,
    maxTurnDurationMs: s.maxTurnDuration * 1000,
    cronKeepAliveWindowMs: s.cronKeepAliveWindow * 1000,
    cronWakeLeadTimeMs: s.cronWakeLeadTime * 1000,
    ttlBufferMs: d.timings.ttlBufferMs,
    extendByMs: d.timings.extendByMs,
    failedRetryBaseMs: d.timings.failedRetryBaseMs,
    failedRetryMaxMs: d.timings.failedRetryMaxMs,
    heartbeatIntervalMs: d.timings.heartbeatIntervalMs,
    ttlMultiplier: d.timings.ttlMultiplier,
    maxLifetimeMs: d.provider.capabilities.maxLifetimeMs,
  };
}

/**
 * How long a start waits for the agent to be ready: the agent's own budget (a real agent
 * installs and loads for minutes on its first start) or the seed's 15 s health budget.
 */
export function startupBudgetMs(d: Pick<LifecycleDeps, "agent" | "timings">): number {
  return d.agent.startupBudgetMs ?? d.timings.healthBudgetMs;
}

/**
 * The lifecycle lock's renewal cap, stretched by what the agent's start budget adds over the
 * default, so a slow but progressing first start never loses its lock mid-wait.
 */
export function lockMaxHoldMs(d: Pick<LifecycleDeps, "agent" | "timings">): number {
  return d.timings.lockMaxHoldMs + Math.max(0, startupBudgetMs(d) - d.timings.healthBudgetMs);
}

export async function recordEvent(
  d: Pick<LifecycleDeps, "store" | "clock" | "logger">,
  e: {
    type: string;
    level?: "info" | "warn" | "error";
    sandboxId: string | null;
    message: string;
    details?: Record<string, unknown>;
  },
): Promise<void> {
  const level = e.level ?? "info";
  d.logger[level]({ type: e.type, sandboxId: e.sandboxId, ...e.details }, e.message);
  await d.store.events.append({
    at: d.clock(),
    type: e.type,
    level,
    sandboxId: e.sandboxId,
    message: e.message,
    details: e.details ?? {},
  });
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export const sleepMs = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

import type { HeartbeatBody, HeartbeatResponse } from "../../protocol/heartbeat";
import type { ExtendReason, InstanceState, Versioned } from "../domain/instance-state";
import { errorMessage, type LifecycleDeps, policySettings, recordEvent } from "./deps";
import { stopQuietly } from "./housekeeping";
import { decideHeartbeat } from "./plan/policy";
import type { StateCell } from "./state-cell";

export type HeartbeatOutcome =
  | { replay: true }
  | { replay: false; response: HeartbeatResponse; followUp: (() => Promise<void>) | null };

/** What the heartbeat hands back to the manager for slow work. */
export interface HeartbeatOps {
  sleep(reason: string, expectSandboxId: string): Promise<unknown>;
  stopFailed(reason: string, sandboxId: string): Promise<void>;
  /** Deliver what is queued to the running daemon (no wake). */
  resumeDelivery(): Promise<void>;
}

/**
 * docs/lifecycle.md, "Extend": decide at once from the state read in the same store round trip as the
 * heartbeat is recorded; slow work (snapshot + stop) is returned as `followUp` for the route
 * to run after responding. Store cost: 1 round trip, plus 1 when the TTL is extended.
 */
export async function handleHeartbeat(
  d: LifecycleDeps,
  cell: StateCell,
  ops: HeartbeatOps,
  hb: HeartbeatBody,
  sentAt: number,
): Promise<HeartbeatOutcome> {
  const now = d.clock();
  const { fresh, state, previous } = await d.store.heartbeats.record({
    ...hb,
    sentAt,
    receivedAt: now,
  });
  if (!fresh) return { replay: true };
  if (previous && hb.daemonRestarts > previous.daemonRestarts) {
    // Only on change, so the capped event log is not flooded by heartbeats.
    await recordEvent(d, {
      type: "daemon.restarted",
      level: "warn",
      sandboxId: hb.sandboxId,
      message: `the daemon restarted (${hb.daemonRestarts} restart${hb.daemonRestarts === 1 ? "" : "s"} in this sandbox)`,
      details: { restarts: hb.daemonRestarts, daemonStatus: hb.daemonStatus },
    });
  }
  if (
    previous?.sandboxId === hb.sandboxId &&
    previous.daemonStatus !== "running" &&
    hb.daemonStatus === "running" &&
    hb.daemonRestarts > 0
  ) {
    // The event moves the dashboard's live marker (live-feed.ts): without it the page showed
    // the restarted daemon as down until its 10 s refresh.
    await recordEvent(d, {
      type: "daemon.back",
      level: "info",
      sandboxId: hb.sandboxId,
      message: `the daemon is listening again after restart ${hb.daemonRestarts}`,
      details: { restarts: hb.daemonRestarts },
    });
  }
  const cur = state?.value ?? null;
  const decision = decideHeartbeat(
    cur,
    { hb, cronDueAt: cur?.cronDueAt ?? null, now },
    policySettings(d),
  );
  // The daemon is back after a restart: messages that found it unreachable go now (issue 22,
  // item 10). Only on that one heartbeat, so the per-heartbeat store cost stays constant.
  const resume =
    hb.daemonReturned && cur?.status === "running" && cur.sandboxId === hb.sandboxId
      ? () => ops.resumeDelivery()
      : null;
  const answer = (
    action: HeartbeatResponse["action"],
    followUp: (() => Promise<void>) | null = null,
  ): HeartbeatOutcome => ({
    replay: false,
    response: { action, reason: decision.reason },
    followUp,
  });
  switch (decision.action) {
    case "stop-stale":
      return answer("stop", async () => {
        await recordEvent(d, {
          type: "sandbox.stale-stopped",
          level: "warn",
          sandboxId: hb.sandboxId,
          message: `stopped sandbox ${hb.sandboxId}: ${decision.reason}`,
        });
        await stopQuietly(d, await d.provider.get(hb.sandboxId).catch(() => null));
      });
    case "stop-failed":
      return answer("stop", () => ops.stopFailed(decision.reason, hb.sandboxId));
    case "extend":
      await extend(d, cell, state as Versioned<InstanceState>, decision.byMs, decision.reason);
      return answer("extend", resume);
    case "sleep": {
      const stuck = decision.stuckDeliverySince;
      return answer("stop", async () => {
        // A turn past maxTurnDuration no longer keeps the agent awake: say so, then rest.
        if (stuck !== undefined)
          await recordEvent(d, {
            type: "delivery.stuck",
            level: "warn",
            sandboxId: hb.sandboxId,
            message: `a delivery open since ${new Date(stuck).toISOString()} is past maxTurnDuration; resting anyway`,
            details: { openDeliverySince: stuck },
          });
        await ops.sleep(decision.reason, hb.sandboxId);
      });
    }
    default:
      return answer("none", resume);
  }
}

async function extend(
  d: LifecycleDeps,
  cell: StateCell,
  cur: Versioned<InstanceState>,
  byMs: number,
  reason: ExtendReason,
): Promise<void> {
  await (await d.provider.get(cur.value.sandboxId as string)).extendTimeout(byMs);
  const now = d.clock();
  const deadline = Math.max(cur.value.ttlDeadline ?? now, now) + byMs;
  try {
    await cell.patch(cur, { ttlDeadline: deadline, lastExtend: { at: now, reason } });
  } catch (err) {
    // A concurrent transition won; the provider's TTL is extended either way.
    d.logger.debug({ err: errorMessage(err) }, "extend: state changed meanwhile");
  }
}

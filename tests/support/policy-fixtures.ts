import type { InstanceState } from "../../src/server/domain/instance-state";
import type { PolicySettings } from "../../src/server/sandbox/plan/policy";
import { INITIAL_STATE } from "../../src/server/sandbox/state-cell";

/** Shared by the policy table tests: the seed's settings and a fixed clock. */
export const MIN = 60_000;
export const NOW = 1_800_000_000_000;

export const SEED_SETTINGS: PolicySettings = {
  activeDurationMs: 5 * MIN,
  maxTurnDurationMs: 10 * MIN,
  cronKeepAliveWindowMs: 15 * MIN,
  cronWakeLeadTimeMs: MIN,
  ttlBufferMs: 5 * MIN,
  extendByMs: 3 * MIN,
  failedRetryBaseMs: 5_000,
  failedRetryMaxMs: 5 * MIN,
  heartbeatIntervalMs: MIN,
  ttlMultiplier: 10,
  maxLifetimeMs: null,
};

/** A state with sandbox `sbx_1` started `ageMin` minutes ago and `ttlLeftMin` minutes of TTL left. */
export function stateOf(
  status: InstanceState["status"],
  ageMin: number,
  ttlLeftMin: number,
  over: Partial<InstanceState> = {},
): InstanceState {
  return {
    ...INITIAL_STATE,
    status,
    since: NOW - ageMin * MIN,
    reason: "",
    sandboxId: "sbx_1",
    sandboxCreatedAt: NOW - ageMin * MIN,
    ttlDeadline: NOW + ttlLeftMin * MIN,
    hooksRegistered: false,
    ...over,
  };
}

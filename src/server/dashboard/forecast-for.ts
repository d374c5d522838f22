import type { StoredHeartbeat } from "../domain/heartbeat-record";
import type { InstanceState } from "../domain/instance-state";
import { sleepForecast } from "../sandbox/plan/policy";

/**
 * Pure: when a running agent goes to sleep if nothing changes, from its last heartbeat (the
 * dashboard's top line and the fleet row); null when it is not running or has not beaten yet.
 */
export function forecastFor(
  state: Pick<InstanceState, "status" | "cronDueAt">,
  heartbeat: StoredHeartbeat | null,
  settings: Parameters<typeof sleepForecast>[1],
  now: number,
): ReturnType<typeof sleepForecast> | null {
  if (state.status !== "running" || !heartbeat) return null;
  return sleepForecast(
    {
      sandboxCreatedAt: heartbeat.sandboxCreatedAt,
      lastChangedAt: heartbeat.lastChangedAt,
      openDeliverySince: heartbeat.openDeliverySince ?? null,
      cronDueAt: state.cronDueAt,
      now,
    },
    settings,
  );
}

import { INSTANCE_LABEL, ROLE_LABEL, WORKER_ROLE } from "../domain/sandbox-labels";
import type { SandboxStatus } from "../providers/types";
import { sandboxAlive } from "./plan/tick-policy";

/** A sandbox as the provider lists it. */
export interface ListedSandbox {
  id: string;
  status: SandboxStatus;
  labels: Record<string, string>;
}

/**
 * Pure: the orphans among the provider's sandboxes — alive, labelled with this instance, not
 * its current sandbox and not a worker (workers end by their own TTL). Only meaningful with
 * the lifecycle lock held: then nobody is between creating a sandbox and recording it, so a
 * sandbox the state does not name was left by a holder that died (e.g. right after the
 * provider's create) and bills until its native TTL unless stopped.
 */
export function orphanIds(
  listed: readonly ListedSandbox[],
  owner: { instance: string; currentSandboxId: string | null },
): string[] {
  return listed
    .filter((s) => s.labels[INSTANCE_LABEL] === owner.instance)
    .filter((s) => s.id !== owner.currentSandboxId && s.labels[ROLE_LABEL] !== WORKER_ROLE)
    .filter((s) => sandboxAlive(s.status))
    .map((s) => s.id);
}

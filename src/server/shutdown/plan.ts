import type { InstanceState } from "../domain/instance-state";

/** How long a stopping server waits for the agent's snapshot + stop before it leaves anyway. */
export const SHUTDOWN_SLEEP_BOUND_MS = 90_000;

export type ShutdownPlan =
  /** Nothing of the agent runs: the server may go at once. */
  | { kind: "leave"; say: string }
  /** Snapshot + stop the running agent (bounded), then go. */
  | { kind: "sleep"; say: string; boundMs: number }
  /** Leave it running on purpose or of necessity, saying until when. */
  | { kind: "keep"; say: string };

export interface ShutdownFacts {
  state: Pick<InstanceState, "status" | "sandboxId" | "ttlDeadline"> | null;
  onExit: "sleep" | "keep";
  now: number;
}

/**
 * Pure: what a stopping local server does with the agent (docs/lifecycle.md, "When the server
 * stops"). Local sandboxes outlive the server on purpose (a restart must not lose them), but
 * without the server nothing puts the agent to sleep: left alone it runs until its native TTL.
 * By default it is snapshotted and stopped; with CLAWRUN_ON_EXIT=keep, or while a wake or
 * sleep is half-way (its own operation holds the lock), the operator is told what keeps
 * running and until when.
 */
export function planShutdown(f: ShutdownFacts): ShutdownPlan {
  const status = f.state?.status ?? "uninitialized";
  if (status === "uninitialized" || status === "sleeping" || status === "failed")
    return { kind: "leave", say: `the agent is ${status}: nothing keeps running` };
  const until = f.state?.ttlDeadline
    ? ` until ${new Date(f.state.ttlDeadline).toISOString().slice(11, 16)} UTC (~${Math.max(1, Math.ceil((f.state.ttlDeadline - f.now) / 60_000))} min)`
    : "";
  const sandbox = f.state?.sandboxId ? `sandbox ${f.state.sandboxId}` : "the agent's sandbox";
  const keeps = `${sandbox} keeps running${until}; the next start of the server puts it to sleep when idle`;
  if (status === "running" && f.onExit === "sleep")
    return {
      kind: "sleep",
      say: `putting the agent to sleep before exiting (snapshot + stop of ${sandbox}, at most ${SHUTDOWN_SLEEP_BOUND_MS / 1000} s; Ctrl-C again to leave it running)`,
      boundMs: SHUTDOWN_SLEEP_BOUND_MS,
    };
  if (status === "running") return { kind: "keep", say: `CLAWRUN_ON_EXIT=keep: ${keeps}` };
  return { kind: "keep", say: `the agent is ${status} (an operation is half-way): ${keeps}` };
}

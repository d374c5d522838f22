import type { SandboxStatus } from "../types";
import type { PersistedStatus } from "./sandbox-meta";

/** What is known about a sandbox at one instant; gathered from disk and /proc by the caller. */
export interface StatusFacts {
  persisted: PersistedStatus;
  now: number;
  deadline: number;
  watchdogAlive: boolean;
  anyProcessAlive: boolean;
  /** A snapshot holds the processes frozen and the process taking it is alive. */
  freezeHeld: boolean;
}

/**
 * Pure: the status a sandbox really has, whatever the files say. Disk can lag behind
 * reality when whoever was meant to update it died (server crash, machine reboot).
 */
export function deriveStatus(f: StatusFacts): SandboxStatus {
  if (f.persisted === "stopped" || f.persisted === "failed") return f.persisted;
  const somethingAlive = f.watchdogAlive || f.anyProcessAlive;
  if (f.persisted === "stopping") return somethingAlive ? "stopping" : "stopped";
  if (f.now >= f.deadline) {
    // The watchdog is killing it right now; without a watchdog nothing would, so say so.
    if (f.watchdogAlive) return "stopping";
    return f.anyProcessAlive ? "failed" : "stopped";
  }
  // No watchdog means no TTL: processes still running would be unguarded.
  if (!f.watchdogAlive) return f.anyProcessAlive ? "failed" : "stopped";
  return f.freezeHeld ? "snapshotting" : "running";
}

export interface WatchdogFacts {
  /** null: the sandbox directory is gone. */
  persisted: PersistedStatus | null;
  now: number;
  deadline: number;
  pollMs: number;
}

export type WatchdogAction = { kind: "exit" } | { kind: "expire" } | { kind: "sleep"; ms: number };

/**
 * Pure: the watchdog's next step. It sleeps at most `pollMs` so it notices a stop (and an
 * orphaned freeze) promptly, and wakes exactly at the deadline; an extension only ever
 * moves the deadline later, so re-reading it on waking is enough to honour one.
 */
export function watchdogStep(f: WatchdogFacts): WatchdogAction {
  if (f.persisted === null || f.persisted === "stopped" || f.persisted === "failed") {
    return { kind: "exit" };
  }
  if (f.now >= f.deadline) return { kind: "expire" };
  return { kind: "sleep", ms: Math.max(1, Math.min(f.deadline - f.now, f.pollMs)) };
}

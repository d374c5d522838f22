import type { ChildProcess } from "node:child_process";
import { realpathSync, statSync } from "node:fs";
import type { Socket } from "node:net";
import { delimiter, join } from "node:path";
import type { Writable } from "node:stream";
import { WARM_CHILD_SLOT, type WarmChild, warmJobFor } from "../protocol/warm-job";

/**
 * Wake speed (docs/sidecar.md, "Start-up order"): on the local provider the sidecar runs in a
 * warm Node process, which leaves a second booted one, its child, for the sidecar's daemon
 * (protocol/warm-job.ts). Elsewhere there is none and the daemon is spawned as usual.
 */
export type WarmDaemonChild = WarmChild<ChildProcess>;

type Slot = { [WARM_CHILD_SLOT]?: WarmDaemonChild };

/** The warm child left in this process, if any, taken out of its slot. */
export function takeWarmChild(): WarmDaemonChild | null {
  const slot = globalThis as Slot;
  const warm = slot[WARM_CHILD_SLOT] ?? null;
  delete slot[WARM_CHILD_SLOT];
  return warm;
}

/** Lets an unused warm child go: its fd 3 closes, and a warm process without a job exits. */
export function dismissWarmChild(warm: WarmDaemonChild): void {
  for (const s of warm.child.stdio) s?.destroy();
  warm.child.unref();
}

/**
 * Runs the daemon's `node <script>` in the warm child when it can run it exactly as a cold
 * `node` would: the same binary first on the daemon's PATH, nothing Node reads at boot
 * (warmJobFor). Returns the child, now the daemon; null: spawn it cold (the caller dismisses
 * the unused child).
 */
export function runInWarmChild(
  warm: WarmDaemonChild | null,
  spec: { command: string; args: string[]; env: Record<string, string>; cwd: string },
): ChildProcess | null {
  if (!warm) return null;
  const { child } = warm;
  const channel = child.stdio[3] as Writable | null | undefined;
  const alive = child.pid !== undefined && child.exitCode === null && child.signalCode === null;
  if (!alive || !channel || channel.destroyed) return null;
  const job = warmJobFor(spec.command, spec.args, spec.env, spec.cwd, warm.boot);
  if (!job || firstOnPath("node", spec.env.PATH ?? "") !== warm.node) return null;
  channel.end(`${JSON.stringify(job)}\n`);
  // The warm process unref'd it while it waited; as the daemon it is supervised like any child.
  child.ref();
  for (const s of [child.stdout, child.stderr]) (s as Socket | null)?.ref();
  return child;
}

/** The real path of the first executable `name` on `path` (what spawn would run), or null. */
function firstOnPath(name: string, path: string): string | null {
  for (const dir of path.split(delimiter)) {
    if (dir === "") continue;
    try {
      const candidate = join(dir, name);
      if (statSync(candidate).isFile()) return realpathSync(candidate);
    } catch {
      // not here
    }
  }
  return null;
}

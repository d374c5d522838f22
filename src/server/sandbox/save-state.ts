import { formatGenerationMarker, GENERATION_FILE } from "../../protocol/generation";
import type { ManagedSandbox } from "../providers/types";
import { errorMessage, type LifecycleDeps, recordEvent, sleepMs } from "./deps";
import type { HeldLock } from "./lifecycle-lock";
import { keepLastLog } from "./log-keeper";

export type Saved =
  | {
      ok: true;
      /** The snapshot taken (snapshot providers). */
      snapshotId: string | null;
      /** The stopped sandbox that now holds the files (resumable providers). */
      savedSandboxId: string | null;
      /** Saving also stopped the sandbox (a resumable stop, or a snapshot that stops). */
      stopped: boolean;
    }
  | { ok: false; errors: string[] };

/**
 * Captures the agent's files before the sandbox stops, in as many attempts as the lifecycle
 * allows (3, 2 s apart): a snapshot, or — on a provider that keeps the sandbox itself — the
 * stop that saves it. The log is kept first when saving ends the sandbox.
 */
export async function saveState(
  d: LifecycleDeps,
  lock: HeldLock,
  sandbox: ManagedSandbox,
  generation: number,
): Promise<Saved> {
  const caps = d.provider.capabilities;
  const saving = caps.resumable ? "save (stop)" : "snapshot";
  if (caps.resumable || caps.snapshotStops) await keepLastLog(d.store.kv, sandbox, d.clock());
  const errors: string[] = [];
  for (let attempt = 1; attempt <= d.timings.snapshotAttempts; attempt++) {
    await lock.confirm();
    try {
      // Restore attestation: the save carries its generation (a save it can't mark is a failed attempt).
      await writeGenerationMarker(sandbox, generation, d.clock());
      if (caps.resumable) {
        await sandbox.stop();
        return { ok: true, snapshotId: null, savedSandboxId: sandbox.id, stopped: true };
      }
      const { id } = await sandbox.snapshot();
      return { ok: true, snapshotId: id, savedSandboxId: null, stopped: caps.snapshotStops };
    } catch (err) {
      errors.push(errorMessage(err));
      await recordEvent(d, {
        type: "snapshot.attempt-failed",
        level: "warn",
        sandboxId: sandbox.id,
        message: `${saving} attempt ${attempt} of ${d.timings.snapshotAttempts} failed: ${errorMessage(err)}`,
      });
      if (attempt < d.timings.snapshotAttempts) await sleepMs(d.timings.snapshotRetryDelayMs);
    }
  }
  return { ok: false, errors };
}

/**
 * Writes the generation marker the sidecar reads when this save is brought back
 * (docs/lifecycle.md, "Restore attestation"). ClawRun writes it, not the agent: the agent's
 * files cannot vouch for themselves.
 */
export async function writeGenerationMarker(
  sandbox: ManagedSandbox,
  generation: number,
  now: number,
): Promise<void> {
  const marker = formatGenerationMarker({ generation, sandboxId: sandbox.id, writtenAt: now });
  await sandbox.writeFiles([{ path: GENERATION_FILE, content: marker }]);
}

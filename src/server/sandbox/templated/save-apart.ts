import type { ManagedSandbox } from "../../providers/types";
import type { recordEvent } from "../deps";
import { planStateSave } from "../plan/state-archive-plan";
import { captureState } from "./sandbox-state";
import type { StateArchives } from "./state-archives";

/**
 * A templated sandbox's save (its snapshot()): the state without the layer as an archive in
 * the store when it is under the cap, then the sandbox stopped as the provider's snapshot would
 * (`state.archived`); otherwise the provider's full snapshot, with `state.full-snapshot`
 * saying why (over the cap, archives off, or a file that is not idle chatter changed while
 * it was packed).
 */

export interface SaveApartDeps {
  archives: StateArchives;
  maxStateArchiveBytes: number;
  layerMount: string;
  volatile: readonly string[];
  clock: () => number;
  event: (e: Parameters<typeof recordEvent>[1]) => Promise<void>;
}

export async function saveStateApart(
  d: SaveApartDeps,
  sandbox: ManagedSandbox,
  signal?: AbortSignal,
): Promise<{ id: string }> {
  const cap = d.maxStateArchiveBytes;
  const captured =
    cap > 0
      ? await captureState(
          sandbox,
          { layerMount: d.layerMount, volatile: d.volatile, clock: d.clock },
          signal,
        )
      : ({ ok: false, reason: "state archives are off (maxStateArchiveMiB: 0)" } as const);
  const plan = captured.ok ? planStateSave(captured.bytes.length, cap) : null;
  if (captured.ok && plan?.kind === "archive") {
    const t0 = d.clock();
    const meta = await d.archives.put(captured.bytes, {
      sourceSandboxId: sandbox.id,
      now: d.clock(),
    });
    const storeMs = d.clock() - t0;
    // The provider's snapshot stops the sandbox (snapshotStops); this save does too.
    await sandbox.stop(signal);
    await d.event({
      type: "state.archived",
      sandboxId: sandbox.id,
      message: `the agent's state (${meta.sizeBytes} bytes compressed, ${meta.chunks} chunk(s)) was saved to the store as ${meta.id}`,
      details: {
        archiveId: meta.id,
        bytes: meta.sizeBytes,
        captureMs: captured.ms,
        storeMs,
        changedWhilePacked: captured.changed,
      },
    });
    return { id: meta.id };
  }
  const why = captured.ok ? (plan as { reason: string }).reason : captured.reason;
  await d.event({
    type: "state.full-snapshot",
    level: "warn",
    sandboxId: sandbox.id,
    message: `saving a full sandbox snapshot instead of a state archive: ${why}`,
    details: { reason: why, bytes: captured.ok ? captured.bytes.length : null },
  });
  return sandbox.snapshot(signal);
}

import type { InstanceState } from "../../domain/instance-state";

/**
 * Pure rules of restore attestation (docs/lifecycle.md, "Restore attestation"): every save
 * carries a generation marker, the state remembers which generation each save holds, and a
 * sandbox brought back must report exactly the generation its save was given — otherwise
 * ClawRun restored something other than what it saved (a stale or swapped snapshot, a
 * persistent sandbox rolled back behind its back) and must not call it healthy.
 */

/** Snapshot generations remembered: well above the 3 snapshots retention keeps. */
export const REMEMBERED_GENERATIONS = 20;

/** How the sandbox was obtained (the wake plan as carried out). */
export type Obtained =
  | { kind: "fresh" }
  | { kind: "restore"; snapshotId: string }
  | { kind: "resume" };

/**
 * The generation the new sandbox must report: none (0) when fresh, the newest save when a
 * persistent sandbox is resumed, the snapshot's own when restored — null when the snapshot
 * predates attestation (or was taken outside ClawRun), so there is nothing to check.
 */
export function expectedGeneration(state: InstanceState, how: Obtained): number | null {
  if (how.kind === "fresh") return 0;
  if (how.kind === "resume") return state.generation;
  return state.snapshotGenerations[how.snapshotId] ?? null;
}

export type Attestation =
  | { ok: true }
  | { ok: false; expected: number; found: number | null; message: string };

/**
 * Whether the generation a sidecar reports is the one expected. A sidecar that reports none
 * (undefined) or an unreadable marker (null) fails whenever a generation is expected.
 */
export function attest(expected: number | null, reported: number | null | undefined): Attestation {
  if (expected === null) return { ok: true };
  const found = reported ?? null;
  if (found === expected) return { ok: true };
  const what =
    found === null
      ? "no readable generation marker"
      : found === 0
        ? "no generation marker (an empty sandbox)"
        : `generation ${found}`;
  const want = expected === 0 ? "an empty sandbox" : `generation ${expected}`;
  return { ok: false, expected, found, message: `found ${what}, expected ${want}` };
}

/** The generation the next save writes into the sandbox before it is taken. */
export function nextGeneration(state: InstanceState): number {
  return state.generation + 1;
}

/** The state patch once a save holding `generation` succeeded (a snapshot id, or a resumable stop). */
export function savedGeneration(
  state: InstanceState,
  generation: number,
  snapshotId: string | null,
): Pick<InstanceState, "generation" | "snapshotGenerations"> {
  if (snapshotId === null) return { generation, snapshotGenerations: state.snapshotGenerations };
  const entries = Object.entries({ ...state.snapshotGenerations, [snapshotId]: generation })
    .sort((a, b) => b[1] - a[1])
    .slice(0, REMEMBERED_GENERATIONS);
  return { generation, snapshotGenerations: Object.fromEntries(entries) };
}

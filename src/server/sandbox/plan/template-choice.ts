/**
 * Pure: which template snapshot a templated start uses (docs/agents/openclaw.md, "Layer",
 * Vercel). One template per layer id, recorded in the store; a recorded one is used until the
 * provider says its snapshot is gone or the layer in a sandbox made from it fails its check.
 */

export interface TemplateRecord {
  layerId: string;
  snapshotId: string;
  builtAt: number;
  buildMs: number;
}

export type TemplateChoice =
  | { kind: "use"; snapshotId: string }
  | { kind: "build" }
  | { kind: "rebuild"; because: string };

export interface TemplateFacts {
  layerId: string;
  record: TemplateRecord | null;
  /** What went wrong with the recorded template in this start, if anything. */
  problem: { kind: "snapshot-gone" } | { kind: "verify-failed"; detail: string } | null;
}

export function chooseTemplate(f: TemplateFacts): TemplateChoice {
  // A record of another layer under this key is not ours to use (a corrupted or hand-edited store).
  const record = f.record && f.record.layerId === f.layerId ? f.record : null;
  if (!record) return { kind: "build" };
  if (f.problem?.kind === "snapshot-gone")
    return {
      kind: "rebuild",
      because: `its template snapshot ${record.snapshotId} no longer exists (deleted or expired)`,
    };
  if (f.problem?.kind === "verify-failed")
    return {
      kind: "rebuild",
      because: `the layer in its template snapshot ${record.snapshotId} failed its check: ${f.problem.detail}`,
    };
  return { kind: "use", snapshotId: record.snapshotId };
}

/** Pure: what the layer's manifest in a sandbox must say; null when it is right. */
export function manifestProblem(raw: string | null, layerId: string): string | null {
  if (raw === null) return "the layer's manifest is missing";
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return "the layer's manifest is not JSON";
  }
  const id = (parsed as { id?: unknown } | null)?.id;
  return id === layerId ? null : `the layer's manifest names ${JSON.stringify(id)}, not ${layerId}`;
}

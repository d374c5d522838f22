import type { LayerBootRecord, LayerRecipe } from "./types";

/** Pure decisions about which layer an agent starts on (upgrade, rollback). */

export type LayerChoice =
  | { kind: "wanted"; recipe: LayerRecipe; id: string }
  /** The wanted layer failed to boot before: start on the last one that worked. */
  | { kind: "rollback"; recipe: LayerRecipe; id: string; skipped: string };

/**
 * The wanted layer (the version ClawRun pins now), unless it already failed to boot for this
 * agent while an earlier layer had worked: then that earlier layer, with the agent's state
 * unchanged. A new pinned version has a new id, so it is always tried once.
 */
export function chooseLayer(input: {
  wanted: LayerRecipe;
  wantedId: string;
  record: LayerBootRecord;
}): LayerChoice {
  const { wanted, wantedId, record } = input;
  if (record.good && record.good.id !== wantedId && record.failed.includes(wantedId)) {
    return { kind: "rollback", recipe: record.good.recipe, id: record.good.id, skipped: wantedId };
  }
  return { kind: "wanted", recipe: wanted, id: wantedId };
}

/**
 * Pure: the record after a start on layer `used` ended. A successful boot makes it the good
 * layer. A failed boot on a layer other than the good one marks it failed, so the next start
 * rolls back; `rollbackTo` names that layer (null: nothing to roll back to). A failed boot on
 * the good layer itself says nothing about the layer, and changes nothing.
 */
export function recordBoot(
  record: LayerBootRecord,
  used: { id: string; recipe: LayerRecipe },
  ok: boolean,
): { record: LayerBootRecord; rollbackTo: string | null } {
  if (ok) {
    return {
      record: { good: used, failed: record.failed.filter((id) => id !== used.id) },
      rollbackTo: null,
    };
  }
  if (record.good === null || record.good.id === used.id) return { record, rollbackTo: null };
  const failed = record.failed.includes(used.id) ? record.failed : [...record.failed, used.id];
  return { record: { good: record.good, failed }, rollbackTo: record.good.id };
}

/**
 * Pure: when the wanted layer cannot be built (registry unreachable, disk full), the agent
 * may still start on the last layer that booted, if it is another one; null: no fallback.
 */
export function fallbackAfterBuildFailure(
  record: LayerBootRecord,
  wantedId: string,
): { recipe: LayerRecipe; id: string } | null {
  return record.good && record.good.id !== wantedId ? record.good : null;
}

import { describe, expect, it } from "vitest";
import { chooseLayer, fallbackAfterBuildFailure, recordBoot } from "./choose-layer";
import type { LayerBootRecord, LayerRecipe } from "./types";

const recipe = (v: string): LayerRecipe => ({
  name: "openclaw",
  inputs: { openclaw: v },
  build: [],
  mountAt: ".clawrun/layer",
});
const OLD = { id: "old", recipe: recipe("1") };
const NEW = { id: "new", recipe: recipe("2") };
const rec = (good: typeof OLD | null, failed: string[] = []): LayerBootRecord => ({ good, failed });

describe("chooseLayer", () => {
  it.each<[string, LayerBootRecord, "wanted" | "rollback", string]>([
    ["first start ever", rec(null), "wanted", "new"],
    ["same layer as last time", rec(NEW), "wanted", "new"],
    ["an upgrade, not tried yet", rec(OLD), "wanted", "new"],
    ["an upgrade that failed to boot", rec(OLD, ["new"]), "rollback", "old"],
    ["a failed mark with nothing to roll back to", rec(null, ["new"]), "wanted", "new"],
    ["a failed mark for another layer", rec(OLD, ["other"]), "wanted", "new"],
  ])("%s", (_what, record, kind, id) => {
    const choice = chooseLayer({ wanted: NEW.recipe, wantedId: "new", record });
    expect(choice.kind).toBe(kind);
    expect(choice.id).toBe(id);
    if (choice.kind === "rollback") {
      expect(choice.skipped).toBe("new");
      expect(choice.recipe).toEqual(OLD.recipe);
    }
  });
});

describe("recordBoot", () => {
  it.each<[string, LayerBootRecord, typeof OLD, boolean, LayerBootRecord, string | null]>([
    ["a first boot works", rec(null), NEW, true, rec(NEW), null],
    ["an upgrade boots", rec(OLD), NEW, true, rec(NEW), null],
    ["a retried upgrade boots: its failed mark goes", rec(OLD, ["new"]), NEW, true, rec(NEW), null],
    ["an upgrade fails: marked, roll back", rec(OLD), NEW, false, rec(OLD, ["new"]), "old"],
    ["it fails again: marked once", rec(OLD, ["new"]), NEW, false, rec(OLD, ["new"]), "old"],
    ["the good layer fails: not the layer's fault", rec(OLD), OLD, false, rec(OLD), null],
    ["a first layer fails: nothing to roll back to", rec(null), NEW, false, rec(null), null],
  ])("%s", (_what, before, used, ok, after, rollbackTo) => {
    expect(recordBoot(before, used, ok)).toEqual({ record: after, rollbackTo });
  });
});

describe("fallbackAfterBuildFailure", () => {
  it.each<[string, LayerBootRecord, string | null]>([
    ["an upgrade cannot be built: the last good layer", rec(OLD), "old"],
    ["never booted: none", rec(null), null],
    ["the good layer itself cannot be rebuilt: none", rec(NEW), null],
  ])("%s", (_what, record, id) => {
    expect(fallbackAfterBuildFailure(record, "new")?.id ?? null).toBe(id);
  });
});

import { describe, expect, it } from "vitest";
import { type LayerOnDisk, layersToPrune } from "./prune-layers";

const l = (id: string, builtAt: number, name = "openclaw"): LayerOnDisk => ({ id, name, builtAt });

describe("layersToPrune (pure)", () => {
  it.each<[string, LayerOnDisk[], string, string[], string[]]>([
    ["one layer: nothing", [l("a", 1)], "a", [], []],
    ["current + previous: nothing", [l("a", 1), l("b", 2)], "b", [], []],
    ["three versions: the oldest goes", [l("a", 1), l("b", 2), l("c", 3)], "c", [], ["a"]],
    [
      "many versions: all but the current and the newest other go, oldest first in any order",
      [l("a", 1), l("b", 2), l("c", 3), l("d", 4)],
      "d",
      [],
      ["b", "a"],
    ],
    [
      "after a rollback the current is older: the newest other is kept as the previous",
      [l("a", 1), l("b", 2), l("c", 3)],
      "a",
      [],
      ["b"],
    ],
    ["a protected (in use) old layer stays", [l("a", 1), l("b", 2), l("c", 3)], "c", ["a"], []],
    [
      "other agents' layers are never touched",
      [
        l("a", 1),
        l("z1", 0, "zeroclaw"),
        l("z2", 0, "zeroclaw"),
        l("z3", 0, "zeroclaw"),
        l("b", 2),
      ],
      "b",
      [],
      [],
    ],
    ["a current layer not on disk decides nothing", [l("a", 1), l("b", 2), l("c", 3)], "x", [], []],
  ])("%s", (_name, layers, current, protect, expected) => {
    expect(layersToPrune({ layers, current, protect })).toEqual(expected);
  });
});

import { describe, expect, it } from "vitest";
import { layerId } from "./layer-id";
import type { LayerRecipe } from "./types";

const base: LayerRecipe = {
  name: "openclaw",
  inputs: { openclaw: "2026.9.6", node: "24.22.3", arch: "x64" },
  build: ["npm install a", "npm install b"],
  mountAt: ".clawrun/layer",
};

describe("layerId", () => {
  it("is stable, prefixed with the name, and ignores input order and the build environment", () => {
    const id = layerId(base);
    expect(id).toMatch(/^openclaw-[0-9a-f]{20}$/);
    expect(
      layerId({ ...base, inputs: { arch: "x64", node: "24.22.3", openclaw: "2026.9.6" } }),
    ).toBe(id);
    expect(layerId({ ...base, buildEnv: { npm_config_cache: "/somewhere" } })).toBe(id);
  });

  it.each<[string, Partial<LayerRecipe>]>([
    ["a new pinned version", { inputs: { ...base.inputs, openclaw: "2026.10.1" } }],
    ["another Node", { inputs: { ...base.inputs, node: "24.23.0" } }],
    ["another arch", { inputs: { ...base.inputs, arch: "arm64" } }],
    ["an edited build command", { build: ["npm install a", "npm install b --flag"] }],
    ["another name", { name: "zeroclaw" }],
  ])("changes with %s", (_what, change) => {
    expect(layerId({ ...base, ...change })).not.toBe(layerId(base));
  });

  it.each(["", "Upper", "../x", "a b"])("refuses the name %j", (name) => {
    expect(() => layerId({ ...base, name })).toThrow(/layer name/);
  });
});

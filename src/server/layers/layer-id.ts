import { createHash } from "node:crypto";
import type { LayerRecipe } from "./types";

/** Bumped when the way layers are laid out or verified changes: every id changes with it. */
export const LAYER_FORMAT = 1;

/**
 * Pure: the content address of a recipe. The same inputs and build commands give the same id
 * on every machine; any change (a new pinned version, another arch, an edited command) gives
 * a new one, so an upgrade is a new layer beside the old and never a mutation of it.
 */
export function layerId(recipe: LayerRecipe): string {
  const inputs = Object.fromEntries(
    Object.entries(recipe.inputs).sort(([a], [b]) => a.localeCompare(b)),
  );
  if (!/^[a-z][a-z0-9-]{0,31}$/.test(recipe.name)) {
    throw new Error(
      `layer name: expected lowercase letters, digits and "-", got ${JSON.stringify(recipe.name)}`,
    );
  }
  const hash = createHash("sha256")
    .update(
      JSON.stringify({ format: LAYER_FORMAT, name: recipe.name, inputs, build: recipe.build }),
    )
    .digest("hex");
  return `${recipe.name}-${hash.slice(0, 20)}`;
}

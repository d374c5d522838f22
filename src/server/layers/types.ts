/**
 * Agent layers (DESIGN.md invariant 9): what an agent *is* (runtime, package, derived caches)
 * built once per version and shared by every sandbox of a provider that can share it; what the
 * agent *has* stays in the sandbox and is what a snapshot saves. docs/agents/openclaw.md, "Layer".
 */

/** How to build one layer. Everything but `buildEnv` goes into the layer's id. */
export interface LayerRecipe {
  /** Short name, the id's prefix ("openclaw"). */
  name: string;
  /** What the layer holds, e.g. `{ openclaw: "2026.9.6", node: "24.22.3", arch: "x64" }`. */
  inputs: Record<string, string>;
  /** Shell commands run one after another with cwd = the (empty) layer directory being built. */
  build: string[];
  /** Where the sandbox sees the layer (a path relative to its root, e.g. ".clawrun/layer"). */
  mountAt: string;
  /** Environment of the build that does not change what is built (e.g. a warm npm cache). */
  buildEnv?: Record<string, string>;
}

/** A layer ready to be mounted. */
export interface BuiltLayer {
  id: string;
  /** Absolute host path of the read-only layer directory. */
  dir: string;
  /** What ensure() had to do: reuse an intact layer, build a missing one, or replace an altered one. */
  action: "reused" | "built" | "rebuilt";
  /** Why an existing layer was not used as it was (rebuilt only). */
  replacedBecause?: string;
  /** Time spent verifying and (re)building, ms. */
  ms: number;
}

/** Which layer an instance booted last and which ones failed to boot (upgrade/rollback memory). */
export interface LayerBootRecord {
  /** The last layer the agent started on successfully, with the recipe to rebuild it. */
  good: { id: string; recipe: LayerRecipe } | null;
  /** Layer ids that failed to boot while `good` was another one: skipped until a new version. */
  failed: string[];
}

export const EMPTY_BOOT_RECORD: LayerBootRecord = { good: null, failed: [] };

/** Which layer each agent booted on last (upgrade/rollback memory), kept by the provider. */
export interface LayerBootStore {
  /** The boot record of `key` (an instance's agent). */
  readBoots(key: string): Promise<LayerBootRecord>;
  writeBoots(key: string, record: LayerBootRecord): Promise<void>;
  /** Deletes old versions of the layer `current` (keeping it and the previous one). */
  prune?(current: string): Promise<PrunedLayers>;
}

/** A provider's layer store (capabilities.sharedLayers). */
export interface LayerStore extends LayerBootStore {
  /**
   * The layer for `recipe`, verified against its manifest: reused when intact, built when
   * missing, rebuilt when altered. Throws LayerBuildError when a build fails; nothing that
   * existed before (other layers, sandboxes) is touched then.
   */
  ensure(recipe: LayerRecipe, signal?: AbortSignal): Promise<BuiltLayer>;
}

export interface PrunedLayers {
  removed: string[];
  kept: string[];
}

export class LayerBuildError extends Error {
  override readonly name = "LayerBuildError";
}

import { chooseLayer, fallbackAfterBuildFailure, recordBoot } from "../layers/choose-layer";
import { layerId } from "../layers/layer-id";
import type { LayerRecipe } from "../layers/types";
import type { ManagedSandbox } from "../providers/types";
import { errorMessage, type LifecycleDeps, recordEvent, startupBudgetMs } from "./deps";

/**
 * The agent's shared layer in a start (docs/agents/openclaw.md, "Layer"): chosen (the pinned
 * one, or the last one that booted after a failed upgrade), verified or built by the
 * provider, and mounted before the agent's files are provisioned. Only on a provider with
 * `sharedLayers`; elsewhere the agent installs itself.
 */

export interface MountedLayer {
  id: string;
  recipe: LayerRecipe;
}

type Deps = Pick<
  LifecycleDeps,
  "agent" | "provider" | "config" | "store" | "clock" | "logger" | "timings"
>;

/** Whose boot record: an instance's agent (the templated provider reads the same key). */
export function layerBootKey(instance: string, agent: string): string {
  return `${instance}.${agent}`;
}

function bootKey(d: Deps): string {
  return layerBootKey(d.config.instance.name, d.agent.name);
}

/** null when no layer applies; throws (the start fails with the reason) when none can be had. */
export async function mountAgentLayer(
  d: Deps,
  sandbox: ManagedSandbox,
  timings: Record<string, number>,
): Promise<MountedLayer | null> {
  const store = d.provider.layers;
  const wanted = d.agent.layer?.();
  // A templated provider created the sandbox on its layer already: only the boot is recorded.
  const templated = d.provider.templateLayerOf?.(sandbox.id);
  if (templated) return templated;
  if (!d.provider.capabilities.sharedLayers || !store || !sandbox.mountLayer || !wanted) {
    return null;
  }
  const t0 = d.clock();
  const wantedId = layerId(wanted);
  const record = await store.readBoots(bootKey(d));
  const choice = chooseLayer({ wanted, wantedId, record });
  if (choice.kind === "rollback") {
    await recordEvent(d, {
      type: "layer.rollback",
      level: "warn",
      sandboxId: sandbox.id,
      message: `layer ${choice.skipped} failed to boot; starting on the previous layer ${choice.id} (the agent's state is kept)`,
      details: { skipped: choice.skipped, layerId: choice.id },
    });
  }
  let use: MountedLayer = { id: choice.id, recipe: choice.recipe };
  let built: Awaited<ReturnType<typeof store.ensure>>;
  try {
    built = await store.ensure(use.recipe, AbortSignal.timeout(startupBudgetMs(d)));
  } catch (err) {
    const fallback = fallbackAfterBuildFailure(record, use.id);
    await recordEvent(d, {
      type: "layer.build-failed",
      level: "error",
      sandboxId: sandbox.id,
      message: `agent layer ${use.id} could not be built: ${errorMessage(err)}${
        fallback ? `; starting on the previous layer ${fallback.id}` : ""
      }`,
      details: { layerId: use.id, fallback: fallback?.id ?? null },
    });
    if (!fallback)
      throw new Error(`agent layer ${use.id} could not be built: ${errorMessage(err)}`);
    use = fallback;
    built = await store.ensure(use.recipe, AbortSignal.timeout(startupBudgetMs(d)));
  }
  if (built.action !== "reused") {
    await recordEvent(d, {
      type: built.action === "rebuilt" ? "layer.rebuilt" : "layer.built",
      level: built.action === "rebuilt" ? "warn" : "info",
      sandboxId: sandbox.id,
      message:
        built.action === "rebuilt"
          ? `agent layer ${built.id} was refused (${built.replacedBecause}) and rebuilt in ${Math.round(built.ms / 1000)} s`
          : `agent layer ${built.id} built in ${Math.round(built.ms / 1000)} s`,
      details: { layerId: built.id, ms: built.ms, inputs: use.recipe.inputs },
    });
  }
  await sandbox.mountLayer(built.dir, use.recipe.mountAt);
  timings.layerMs = d.clock() - t0;
  return use;
}

/** After the start's health wait: remembers the layer that booted, or marks a new one failed. */
export async function recordLayerBoot(
  d: Deps,
  sandboxId: string,
  layer: MountedLayer,
  ok: boolean,
): Promise<void> {
  const store = d.provider.layers ?? d.provider.layerBoots;
  if (!store) return;
  const key = bootKey(d);
  const next = recordBoot(await store.readBoots(key), layer, ok);
  await store.writeBoots(key, next.record);
  if (ok) await pruneLayers(d, sandboxId, layer.id);
  if (next.rollbackTo !== null) {
    await recordEvent(d, {
      type: "layer.boot-failed",
      level: "error",
      sandboxId,
      message: `the agent did not start on layer ${layer.id}; the next start rolls back to layer ${next.rollbackTo}`,
      details: { layerId: layer.id, rollbackTo: next.rollbackTo },
    });
  }
}

/**
 * After a good boot: old versions of this layer go (the current and the previous one stay, for
 * a rollback). Never fails the start: a layer left behind only costs disk.
 */
async function pruneLayers(d: Deps, sandboxId: string, current: string): Promise<void> {
  try {
    const store = d.provider.layers ?? d.provider.layerBoots;
    const pruned = await store?.prune?.(current);
    if (!pruned || pruned.removed.length === 0) return;
    await recordEvent(d, {
      type: "layer.pruned",
      level: "info",
      sandboxId,
      message: `removed ${pruned.removed.length} old agent layer(s): ${pruned.removed.join(", ")}; kept ${pruned.kept.join(", ")}`,
      details: { removed: pruned.removed, kept: pruned.kept, current },
    });
  } catch (err) {
    d.logger.warn({ err: errorMessage(err) }, "pruning old agent layers failed");
  }
}

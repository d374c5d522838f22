/** A complete layer on disk (its manifest read). */
export interface LayerOnDisk {
  id: string;
  /** The recipe's name ("openclaw"): versions of one agent's layer share it. */
  name: string;
  /** When it was built (epoch ms, from its manifest). */
  builtAt: number;
}

/**
 * Pure: which layers to delete after an agent booted on `current`. Per name, the current layer
 * and the previous version (the newest other one by build time: what a rollback needs) are
 * kept; older versions go, except any in `protect` (mounted by a live sandbox, or some
 * instance's last good layer). Layers of other names are never touched here: their own agent
 * prunes them.
 */
export function layersToPrune(input: {
  layers: readonly LayerOnDisk[];
  current: string;
  protect: readonly string[];
}): string[] {
  const current = input.layers.find((l) => l.id === input.current);
  if (!current) return []; // not a layer we can see: decide nothing
  const others = input.layers
    .filter((l) => l.name === current.name && l.id !== current.id)
    .sort((a, b) => b.builtAt - a.builtAt || a.id.localeCompare(b.id));
  return others
    .slice(1)
    .map((l) => l.id)
    .filter((id) => !input.protect.includes(id));
}

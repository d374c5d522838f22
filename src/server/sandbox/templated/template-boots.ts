import { layerBootRecordSchema } from "../../layers/schemas";
import {
  EMPTY_BOOT_RECORD,
  type LayerBootRecord,
  type LayerBootStore,
  type PrunedLayers,
} from "../../layers/types";
import type { KvStore } from "../../store/types";

/**
 * The boot records of templated agents in ClawRun's store (on the local provider they are
 * files beside the layers): which layer each agent last started on, and which new ones failed
 * to, so an upgrade that does not boot rolls back to the previous template.
 */
export class TemplateBoots implements LayerBootStore {
  constructor(
    private readonly kv: KvStore,
    /** Old templates of the layer go after a good boot (TemplatedProvider.pruneTemplates). */
    readonly prune?: (current: string) => Promise<PrunedLayers>,
  ) {}

  async readBoots(key: string): Promise<LayerBootRecord> {
    const raw = await this.kv.get(`layer-boots/${key}`);
    if (raw === null) return EMPTY_BOOT_RECORD;
    const parsed = layerBootRecordSchema.safeParse(JSON.parse(raw));
    // A damaged record only loses the rollback memory: the wanted layer is tried.
    return parsed.success ? parsed.data : EMPTY_BOOT_RECORD;
  }

  async writeBoots(key: string, record: LayerBootRecord): Promise<void> {
    await this.kv.set(`layer-boots/${key}`, JSON.stringify(record), null);
  }
}

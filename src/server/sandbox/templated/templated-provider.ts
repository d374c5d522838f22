import type { Logger } from "pino";
import { chooseLayer, fallbackAfterBuildFailure } from "../../layers/choose-layer";
import { layerId } from "../../layers/layer-id";
import type { LayerRecipe } from "../../layers/types";
import {
  type CreateSandboxOptions,
  type ManagedSandbox,
  type SandboxProvider,
  type SnapshotInfo,
  SnapshotNotFoundError,
} from "../../providers/types";
import type { Store } from "../../store/types";
import { errorMessage, recordEvent } from "../deps";
import { isStateArchiveId } from "../plan/state-archive-plan";
import {
  chooseTemplate,
  manifestProblem,
  type TemplateFacts,
  type TemplateRecord,
} from "../plan/template-choice";
import { LAYER_MANIFEST, LayerTemplates } from "./layer-templates";
import { restoreState } from "./sandbox-state";
import { saveStateApart } from "./save-apart";
import { StateArchives } from "./state-archives";
import { TemplateBoots } from "./template-boots";

/**
 * The agent's layer as a template snapshot, and its state apart (capabilities.layerTemplates:
 * the Vercel provider in snapshot mode; docs/agents/openclaw.md, "Layer", Vercel). Wraps the
 * provider so the lifecycle stays as it is:
 * - create() of an agent sandbox (fresh, or from a state archive) creates it from the layer's
 *   template (built on first use, rebuilt with `layer.rebuilt` when its snapshot is gone or the
 *   layer in it fails its check), then unpacks the archive onto it;
 * - a sandbox's snapshot() packs the state without the layer into an archive kept in the store
 *   (then stops the sandbox, as the provider's snapshot would) when it is under the cap, and
 *   takes the provider's full snapshot otherwise, with `state.full-snapshot` saying why;
 * - listSnapshots() lists the archives with the provider's snapshots, never the templates.
 * Restoring a full snapshot is the provider's own create (it holds the layer too).
 */

type Layer = { id: string; recipe: LayerRecipe };

/** The template could not be built (a start may then fall back to the last good layer). */
class TemplateBuildError extends Error {
  override readonly name = "TemplateBuildError";
}

export interface TemplatedDeps {
  store: Pick<Store, "kv" | "events">;
  recipe: LayerRecipe;
  instance: string;
  maxStateArchiveBytes: number;
  /** The agent's boot-record key (agent-layer.ts's layerBootKey). */
  bootKey: string;
  /** Paths (relative to the root) that may change while the state is packed: logs, WAL files. */
  volatile: readonly string[];
  buildTimeoutMs: number;
  clock: () => number;
  logger: Logger;
}

export class TemplatedProvider implements SandboxProvider {
  readonly name: string;
  readonly capabilities: SandboxProvider["capabilities"];
  readonly templates: LayerTemplates;
  readonly archives: StateArchives;
  readonly layerBoots: TemplateBoots;
  private readonly layerId: string;
  /** One build per layer at a time in this process (the lifecycle lock covers other servers). */
  private readonly building = new Map<string, Promise<TemplateRecord>>();
  /** The layer each agent sandbox was just created on, until its start records the boot. */
  private readonly createdOn = new Map<string, Layer>();

  constructor(
    private readonly inner: SandboxProvider,
    private readonly d: TemplatedDeps,
  ) {
    this.name = inner.name;
    this.capabilities = inner.capabilities;
    this.layerId = layerId(d.recipe);
    this.templates = new LayerTemplates({
      provider: inner,
      kv: d.store.kv,
      instance: d.instance,
      clock: d.clock,
      buildTimeoutMs: d.buildTimeoutMs,
    });
    this.archives = new StateArchives(d.store.kv);
    this.layerBoots = new TemplateBoots(d.store.kv, async (current) => {
      const good = (await this.layerBoots.readBoots(d.bootKey)).good?.id;
      return this.templates.prune(current, good ? [good] : []);
    });
  }

  templateLayerOf(sandboxId: string): Layer | null {
    const layer = this.createdOn.get(sandboxId) ?? null;
    this.createdOn.delete(sandboxId);
    return layer;
  }

  /**
   * The pinned layer, or the last one that booted when the pinned one failed to (layer.rollback);
   * when the pinned one cannot be built, the last good one if it is another (layer.build-failed
   * says so), as on the local provider (agent-layer.ts).
   */
  private async agentLayerSandbox(
    opts: CreateSandboxOptions,
  ): Promise<{ sandbox: ManagedSandbox; snapshotId: string; layer: Layer }> {
    const record = await this.layerBoots.readBoots(this.d.bootKey);
    const choice = chooseLayer({ wanted: this.d.recipe, wantedId: this.layerId, record });
    if (choice.kind === "rollback")
      await this.event({
        type: "layer.rollback",
        level: "warn",
        sandboxId: null,
        message: `layer ${choice.skipped} failed to boot; starting on the previous layer ${choice.id} (the agent's state is kept)`,
        details: { skipped: choice.skipped, layerId: choice.id },
      });
    const layer: Layer = { id: choice.id, recipe: choice.recipe };
    try {
      return { ...(await this.fromTemplate(opts, layer)), layer };
    } catch (err) {
      const fallback =
        err instanceof TemplateBuildError && fallbackAfterBuildFailure(record, layer.id);
      if (!fallback) throw err;
      await this.event({
        type: "layer.fallback",
        level: "warn",
        sandboxId: null,
        message: `starting on the previous layer ${fallback.id}: ${errorMessage(err)}`,
        details: { layerId: fallback.id, failed: layer.id },
      });
      return { ...(await this.fromTemplate(opts, fallback)), layer: fallback };
    }
  }

  private event(e: Parameters<typeof recordEvent>[1]): Promise<void> {
    return recordEvent(
      { store: this.d.store as Store, clock: this.d.clock, logger: this.d.logger },
      e,
    );
  }

  async create(opts: CreateSandboxOptions): Promise<ManagedSandbox> {
    const fromArchive = opts.snapshotId !== undefined && isStateArchiveId(opts.snapshotId);
    // A full snapshot (which holds the layer too), or an empty worker: the provider's own create.
    if (!fromArchive && (opts.snapshotId !== undefined || opts.purpose === "worker"))
      return this.wrap(await this.inner.create(opts));
    const archiveId = fromArchive ? (opts.snapshotId as string) : null;
    // Read first: a missing or damaged archive fails before anything is created.
    const archive = archiveId ? await this.archives.read(archiveId) : null;
    const t0 = this.d.clock();
    const { sandbox, snapshotId, layer } = await this.agentLayerSandbox(opts);
    const createMs = this.d.clock() - t0;
    let restoreMs = 0;
    if (archive && archiveId) {
      const t1 = this.d.clock();
      try {
        await restoreState(sandbox, archive, opts.signal);
      } catch (err) {
        await sandbox.stop().catch(() => undefined);
        throw new Error(`restoring state archive ${archiveId} failed: ${errorMessage(err)}`);
      }
      restoreMs = this.d.clock() - t1;
    }
    await this.event({
      type: "layer.template-used",
      sandboxId: sandbox.id,
      message: `sandbox ${sandbox.id} created from the template of layer ${layer.id}${archiveId ? `, state ${archiveId} restored` : ""}`,
      details: {
        layerId: layer.id,
        templateSnapshotId: snapshotId,
        archiveId,
        archiveBytes: archive?.length ?? null,
        createMs,
        restoreMs,
      },
    });
    // The start records whether the agent booted on it (a worker runs no agent).
    if (opts.purpose !== "worker") this.createdOn.set(sandbox.id, layer);
    return this.wrap(sandbox);
  }

  /**
   * The layer's template: built when there is none (`layer.built`), used when recorded, and
   * rebuilt once (`layer.rebuilt`) when its snapshot is gone or the layer in a sandbox made
   * from it fails its check. Callers hold the lifecycle lock.
   */
  async ensureTemplate(
    signal?: AbortSignal,
  ): Promise<TemplateRecord & { action: "reused" | "built" | "rebuilt" }> {
    const record = await this.templates.record(this.layerId);
    // Asked ahead of time, so one listing is affordable: a template whose snapshot is gone or
    // expired is rebuilt now rather than at the next start.
    const now = this.d.clock();
    const live =
      record !== null &&
      (await this.inner.listSnapshots(signal)).some(
        (s) => s.id === record.snapshotId && (s.expiresAt == null || s.expiresAt > now),
      );
    const choice = chooseTemplate({
      layerId: this.layerId,
      record,
      problem: record && !live ? { kind: "snapshot-gone" } : null,
    });
    if (choice.kind === "use" && record) return { ...record, action: "reused" };
    const because = choice.kind === "rebuild" ? choice.because : null;
    const built = await this.buildOnce(
      { id: this.layerId, recipe: this.d.recipe },
      because,
      signal,
      record,
    );
    return { ...built, action: because ? "rebuilt" : "built" };
  }

  private async fromTemplate(
    opts: CreateSandboxOptions,
    layer: Layer,
  ): Promise<{ sandbox: ManagedSandbox; snapshotId: string }> {
    let problem: TemplateFacts["problem"] = null;
    for (;;) {
      const record = await this.templates.record(layer.id);
      const choice = chooseTemplate({ layerId: layer.id, record, problem });
      const snapshotId =
        choice.kind === "use"
          ? choice.snapshotId
          : (
              await this.buildOnce(
                layer,
                choice.kind === "rebuild" ? choice.because : null,
                opts.signal,
                record,
              )
            ).snapshotId;
      let sandbox: ManagedSandbox;
      try {
        sandbox = await this.inner.create({ ...opts, snapshotId });
      } catch (err) {
        if (err instanceof SnapshotNotFoundError && choice.kind === "use") {
          problem = { kind: "snapshot-gone" };
          continue;
        }
        throw err;
      }
      const manifest = await sandbox.readFile(
        `${layer.recipe.mountAt}/${LAYER_MANIFEST}`,
        opts.signal,
      );
      const bad = manifestProblem(manifest?.toString() ?? null, layer.id);
      if (!bad) return { sandbox, snapshotId };
      await sandbox.stop().catch(() => undefined);
      // A template just built that fails its check would fail again: say so, do not loop.
      if (choice.kind !== "use")
        throw new Error(`the new template of layer ${layer.id} failed its check: ${bad}`);
      problem = { kind: "verify-failed", detail: bad };
    }
  }

  private buildOnce(
    layer: Layer,
    because: string | null,
    signal?: AbortSignal,
    old: TemplateRecord | null = null,
  ): Promise<TemplateRecord> {
    let building = this.building.get(layer.id);
    if (!building) {
      building = this.build(layer, because, signal, old).finally(() =>
        this.building.delete(layer.id),
      );
      this.building.set(layer.id, building);
    }
    return building;
  }

  private async build(
    layer: Layer,
    because: string | null,
    signal: AbortSignal | undefined,
    old: TemplateRecord | null,
  ): Promise<TemplateRecord> {
    if (old) await this.templates.forget(old.layerId);
    let record: TemplateRecord;
    try {
      record = await this.templates.build(layer.recipe, signal);
    } catch (err) {
      await this.event({
        type: "layer.build-failed",
        level: "error",
        sandboxId: null,
        message: `the template of agent layer ${layer.id} could not be built: ${errorMessage(err)}`,
        details: { layerId: layer.id },
      });
      throw new TemplateBuildError(
        `agent layer ${layer.id} could not be built: ${errorMessage(err)}`,
      );
    }
    // The old template's snapshot, if any is left, serves nothing now.
    if (old) await this.inner.deleteSnapshot(old.snapshotId).catch(() => undefined);
    const secs = Math.round(record.buildMs / 1000);
    await this.event({
      type: because ? "layer.rebuilt" : "layer.built",
      level: because ? "warn" : "info",
      sandboxId: null,
      message: because
        ? `the template of agent layer ${layer.id} was refused (${because}) and rebuilt in ${secs} s`
        : `agent layer ${layer.id} built into template snapshot ${record.snapshotId} in ${secs} s`,
      details: {
        layerId: layer.id,
        snapshotId: record.snapshotId,
        ms: record.buildMs,
        inputs: layer.recipe.inputs,
        ...(because ? { because } : {}),
      },
    });
    return record;
  }

  /** The agent's sandbox with its snapshot() saving the state apart from the layer. */
  private wrap(sandbox: ManagedSandbox): ManagedSandbox {
    const snapshot = (signal?: AbortSignal) => this.saveState(sandbox, signal);
    return new Proxy(sandbox, {
      get(target, prop, receiver) {
        if (prop === "snapshot") return snapshot;
        const value = Reflect.get(target, prop, receiver);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  }

  private saveState(sandbox: ManagedSandbox, signal?: AbortSignal): Promise<{ id: string }> {
    return saveStateApart(
      {
        archives: this.archives,
        maxStateArchiveBytes: this.d.maxStateArchiveBytes,
        layerMount: this.d.recipe.mountAt,
        volatile: this.d.volatile,
        clock: this.d.clock,
        event: (e) => this.event(e),
      },
      sandbox,
      signal,
    );
  }

  async listSnapshots(signal?: AbortSignal): Promise<SnapshotInfo[]> {
    const [snapshots, archives, templates] = await Promise.all([
      this.inner.listSnapshots(signal),
      this.archives.list(),
      this.templates.records(),
    ]);
    const templateIds = new Set(Object.values(templates).map((t) => t.snapshotId));
    const saved: SnapshotInfo[] = archives.map((a) => ({
      id: a.id,
      createdAt: a.createdAt,
      sourceSandboxId: a.sourceSandboxId,
      sizeBytes: a.sizeBytes,
      expiresAt: null,
    }));
    return [...snapshots.filter((s) => !templateIds.has(s.id)), ...saved].sort(
      (a, b) => b.createdAt - a.createdAt || b.id.localeCompare(a.id),
    );
  }

  async deleteSnapshot(id: string, signal?: AbortSignal): Promise<void> {
    if (isStateArchiveId(id)) return this.archives.delete(id);
    const templates = Object.values(await this.templates.records());
    if (templates.some((t) => t.snapshotId === id)) throw new SnapshotNotFoundError(id);
    return this.inner.deleteSnapshot(id, signal);
  }

  async get(id: string, signal?: AbortSignal): Promise<ManagedSandbox> {
    return this.wrap(await this.inner.get(id, signal));
  }

  list(signal?: AbortSignal) {
    return this.inner.list(signal);
  }

  check(signal?: AbortSignal) {
    return this.inner.check(signal);
  }
}

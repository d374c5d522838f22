import type { Logger } from "pino";
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
import { isStateArchiveId, planStateSave } from "../plan/state-archive-plan";
import {
  chooseTemplate,
  manifestProblem,
  type TemplateFacts,
  type TemplateRecord,
} from "../plan/template-choice";
import { LAYER_MANIFEST, LayerTemplates } from "./layer-templates";
import { captureState, restoreState } from "./sandbox-state";
import { StateArchives } from "./state-archives";

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

export interface TemplatedDeps {
  store: Pick<Store, "kv" | "events">;
  recipe: LayerRecipe;
  instance: string;
  maxStateArchiveBytes: number;
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
  private readonly layerId: string;
  /** One build per layer at a time in this process (the lifecycle lock covers other servers). */
  private building: Promise<TemplateRecord> | null = null;

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
    const { sandbox, snapshotId } = await this.fromTemplate(opts);
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
      message: `sandbox ${sandbox.id} created from the template of layer ${this.layerId}${archiveId ? `, state ${archiveId} restored` : ""}`,
      details: {
        layerId: this.layerId,
        templateSnapshotId: snapshotId,
        archiveId,
        archiveBytes: archive?.length ?? null,
        createMs,
        restoreMs,
      },
    });
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
    const built = await this.buildOnce(because, signal, record);
    return { ...built, action: because ? "rebuilt" : "built" };
  }

  private async fromTemplate(
    opts: CreateSandboxOptions,
  ): Promise<{ sandbox: ManagedSandbox; snapshotId: string }> {
    let problem: TemplateFacts["problem"] = null;
    for (;;) {
      const record = await this.templates.record(this.layerId);
      const choice = chooseTemplate({ layerId: this.layerId, record, problem });
      const snapshotId =
        choice.kind === "use"
          ? choice.snapshotId
          : (
              await this.buildOnce(
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
        `${this.d.recipe.mountAt}/${LAYER_MANIFEST}`,
        opts.signal,
      );
      const bad = manifestProblem(manifest?.toString() ?? null, this.layerId);
      if (!bad) return { sandbox, snapshotId };
      await sandbox.stop().catch(() => undefined);
      // A template just built that fails its check would fail again: say so, do not loop.
      if (choice.kind !== "use")
        throw new Error(`the new template of layer ${this.layerId} failed its check: ${bad}`);
      problem = { kind: "verify-failed", detail: bad };
    }
  }

  private buildOnce(
    because: string | null,
    signal?: AbortSignal,
    old: TemplateRecord | null = null,
  ): Promise<TemplateRecord> {
    this.building ??= this.build(because, signal, old).finally(() => {
      this.building = null;
    });
    return this.building;
  }

  private async build(
    because: string | null,
    signal: AbortSignal | undefined,
    old: TemplateRecord | null,
  ): Promise<TemplateRecord> {
    if (old) await this.templates.forget(old.layerId);
    let record: TemplateRecord;
    try {
      record = await this.templates.build(this.d.recipe, signal);
    } catch (err) {
      await this.event({
        type: "layer.build-failed",
        level: "error",
        sandboxId: null,
        message: `the template of agent layer ${this.layerId} could not be built: ${errorMessage(err)}`,
        details: { layerId: this.layerId },
      });
      throw new Error(`agent layer ${this.layerId} could not be built: ${errorMessage(err)}`);
    }
    // The old template's snapshot, if any is left, serves nothing now.
    if (old) await this.inner.deleteSnapshot(old.snapshotId).catch(() => undefined);
    const secs = Math.round(record.buildMs / 1000);
    await this.event({
      type: because ? "layer.rebuilt" : "layer.built",
      level: because ? "warn" : "info",
      sandboxId: null,
      message: because
        ? `the template of agent layer ${this.layerId} was refused (${because}) and rebuilt in ${secs} s`
        : `agent layer ${this.layerId} built into template snapshot ${record.snapshotId} in ${secs} s`,
      details: {
        layerId: this.layerId,
        snapshotId: record.snapshotId,
        ms: record.buildMs,
        inputs: this.d.recipe.inputs,
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

  private async saveState(sandbox: ManagedSandbox, signal?: AbortSignal): Promise<{ id: string }> {
    const cap = this.d.maxStateArchiveBytes;
    const captured =
      cap > 0
        ? await captureState(
            sandbox,
            { layerMount: this.d.recipe.mountAt, volatile: this.d.volatile, clock: this.d.clock },
            signal,
          )
        : ({ ok: false, reason: "state archives are off (maxStateArchiveMiB: 0)" } as const);
    const plan = captured.ok ? planStateSave(captured.bytes.length, cap) : null;
    if (captured.ok && plan?.kind === "archive") {
      const t0 = this.d.clock();
      const meta = await this.archives.put(captured.bytes, {
        sourceSandboxId: sandbox.id,
        now: this.d.clock(),
      });
      const storeMs = this.d.clock() - t0;
      // The provider's snapshot stops the sandbox (snapshotStops); this save does too.
      await sandbox.stop(signal);
      await this.event({
        type: "state.archived",
        sandboxId: sandbox.id,
        message: `the agent's state (${meta.sizeBytes} bytes compressed, ${meta.chunks} chunk(s)) was saved to the store as ${meta.id}`,
        details: {
          archiveId: meta.id,
          bytes: meta.sizeBytes,
          captureMs: captured.ms,
          storeMs,
          changedWhilePacked: captured.changed,
        },
      });
      return { id: meta.id };
    }
    const why = captured.ok ? (plan as { reason: string }).reason : captured.reason;
    await this.event({
      type: "state.full-snapshot",
      level: "warn",
      sandboxId: sandbox.id,
      message: `saving a full sandbox snapshot instead of a state archive: ${why}`,
      details: { reason: why, bytes: captured.ok ? captured.bytes.length : null },
    });
    return sandbox.snapshot(signal);
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

import { z } from "zod";
import { INSTANCE_LABEL, ROLE_LABEL } from "../../domain/sandbox-labels";
import { layerId } from "../../layers/layer-id";
import { layersToPrune } from "../../layers/prune-layers";
import { LayerBuildError, type LayerRecipe, type PrunedLayers } from "../../layers/types";
import type { ManagedSandbox, SandboxProvider } from "../../providers/types";
import type { KvStore } from "../../store/types";
import { errorMessage } from "../deps";
import { manifestProblem, type TemplateRecord } from "../plan/template-choice";

/**
 * Template snapshots of agent layers (templated providers; docs/agents/openclaw.md, "Layer",
 * Vercel): a sandbox with the layer built at its mount path and nothing else, snapshotted
 * once per layer id. The record `{ layerId → snapshot }` is written only after the snapshot
 * exists, so a server that dies mid-build leaves no record (its build sandbox is an orphan the
 * tick stops) and the next start builds again. Callers hold the lifecycle lock: two servers
 * never build the same template at once.
 */

/** The role label of a template's build sandbox (not a worker: the sweep stops a stray one). */
export const TEMPLATE_ROLE = "layer-template";
/** Written into the layer at build time; a sandbox made from the template is checked against it. */
export const LAYER_MANIFEST = ".clawrun-layer.json";

const RECORDS_KEY = "layer-templates";
const recordSchema = z.object({
  layerId: z.string(),
  snapshotId: z.string(),
  builtAt: z.number(),
  buildMs: z.number(),
});
const recordsSchema = z.record(z.string(), recordSchema);

export interface TemplateBuildDeps {
  provider: SandboxProvider;
  kv: KvStore;
  instance: string;
  clock: () => number;
  /** The build sandbox's life (the agent's start budget). */
  buildTimeoutMs: number;
}

export class LayerTemplates {
  constructor(private readonly d: TemplateBuildDeps) {}

  async records(): Promise<Record<string, TemplateRecord>> {
    const raw = await this.d.kv.get(RECORDS_KEY);
    if (raw === null) return {};
    const parsed = recordsSchema.safeParse(JSON.parse(raw));
    if (!parsed.success) throw new Error(`the store's layer-template records are damaged`);
    return parsed.data;
  }

  async record(id: string): Promise<TemplateRecord | null> {
    return (await this.records())[id] ?? null;
  }

  /**
   * Builds the template of `recipe`: create, run the build commands in the mount path, write
   * the manifest, check it, snapshot (which stops the build sandbox), record. A failed step
   * throws LayerBuildError with the step and the tail of its output; nothing is recorded.
   */
  async build(recipe: LayerRecipe, signal?: AbortSignal): Promise<TemplateRecord> {
    const id = layerId(recipe);
    const t0 = this.d.clock();
    const sandbox = await this.d.provider.create({
      timeoutMs: this.d.buildTimeoutMs,
      ports: [],
      labels: { [INSTANCE_LABEL]: this.d.instance, [ROLE_LABEL]: TEMPLATE_ROLE },
      signal,
    });
    let snapshotted = false;
    try {
      await run(sandbox, "make the mount path", "mkdir", ["-p", recipe.mountAt], ".", {}, signal);
      for (const [i, command] of recipe.build.entries()) {
        const step = `build step ${i + 1} of ${recipe.build.length}`;
        await run(sandbox, step, "sh", ["-c", command], recipe.mountAt, recipe.buildEnv, signal);
      }
      const manifest = `${recipe.mountAt}/${LAYER_MANIFEST}`;
      await sandbox.writeFiles(
        [{ path: manifest, content: JSON.stringify({ id, inputs: recipe.inputs, builtAt: t0 }) }],
        signal,
      );
      // Read-only against accidents (the agent's user could chmod it back: the check at each
      // use catches a replaced manifest, not every edited file).
      await run(
        sandbox,
        "make the layer read-only",
        "chmod",
        ["-R", "a-w", recipe.mountAt],
        ".",
        {},
        signal,
      );
      const bad = manifestProblem(
        (await sandbox.readFile(manifest, signal))?.toString() ?? null,
        id,
      );
      if (bad) throw new LayerBuildError(`the built layer failed its check: ${bad}`);
      const snap = await sandbox.snapshot(signal);
      snapshotted = true;
      const record: TemplateRecord = {
        layerId: id,
        snapshotId: snap.id,
        builtAt: this.d.clock(),
        buildMs: this.d.clock() - t0,
      };
      const all = await this.records();
      await this.d.kv.set(RECORDS_KEY, JSON.stringify({ ...all, [id]: record }), null);
      return record;
    } finally {
      if (!snapshotted) await sandbox.stop().catch(() => undefined);
    }
  }

  /**
   * After a good boot on `current`: templates of older versions of the layer go (the record,
   * then the snapshot), keeping the current one, the previous version (what a rollback needs)
   * and `protect` (the agent's last good layer); layers/prune-layers.ts decides.
   */
  async prune(current: string, protect: string[]): Promise<PrunedLayers> {
    const records = Object.values(await this.records());
    const removed = layersToPrune({
      layers: records.map((r) => ({
        id: r.layerId,
        name: r.layerId.replace(/-[0-9a-f]+$/, ""),
        builtAt: r.builtAt,
      })),
      current,
      protect,
    });
    for (const id of removed) {
      const record = records.find((r) => r.layerId === id);
      await this.forget(id);
      if (record) await this.d.provider.deleteSnapshot(record.snapshotId).catch(() => undefined);
    }
    return { removed, kept: records.map((r) => r.layerId).filter((id) => !removed.includes(id)) };
  }

  /** Forgets a template (after its snapshot went missing or failed its check). */
  async forget(id: string): Promise<void> {
    const { [id]: _gone, ...rest } = await this.records();
    await this.d.kv.set(RECORDS_KEY, JSON.stringify(rest), null);
  }
}

async function run(
  sandbox: ManagedSandbox,
  step: string,
  cmd: string,
  args: string[],
  cwd: string,
  env: Record<string, string> | undefined,
  signal?: AbortSignal,
): Promise<void> {
  let result: Awaited<ReturnType<ManagedSandbox["runCommand"]>>;
  try {
    result = await sandbox.runCommand({ cmd, args, cwd, env: env ?? {}, signal });
  } catch (err) {
    throw new LayerBuildError(`${step} could not run: ${errorMessage(err)}`);
  }
  if (result.exitCode !== 0) {
    const out = `${result.stdout}\n${result.stderr}`.trim().split("\n").slice(-8).join(" | ");
    throw new LayerBuildError(`${step} exited ${result.exitCode}: ${out.slice(-800)}`);
  }
}

import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { chmod, rename } from "node:fs/promises";
import { basename, join } from "node:path";
import { z } from "zod";
import { layerId } from "../../layers/layer-id";
import { type LayerOnDisk, layersToPrune } from "../../layers/prune-layers";
import { layerBootRecordSchema, layerRecipeSchema } from "../../layers/schemas";
import {
  type BuiltLayer,
  EMPTY_BOOT_RECORD,
  type LayerBootRecord,
  LayerBuildError,
  type LayerRecipe,
  type LayerStore,
  type PrunedLayers,
} from "../../layers/types";
import type { HostEnv } from "./commands";
import {
  contentHash,
  LAYER_MANIFEST,
  makeReadOnly,
  removeTree,
  statFingerprint,
} from "./layer-tree";
import { type Check, readJson, writeJsonAtomic } from "./sandbox-meta";

/**
 * Layers on this machine (docs/agents/openclaw.md, "Layer"): `<layersDir>/<id>/`, built in a
 * temporary directory beside it and renamed into place (a listed layer is always complete),
 * then made read-only; its manifest records the content hash, checked before every use.
 */

const manifestSchema = z.object({
  format: z.literal(1),
  id: z.string(),
  recipe: layerRecipeSchema,
  contentHash: z.string().regex(/^[0-9a-f]{64}$/),
  builtAt: z.number(),
  buildMs: z.number(),
});

/** readJson's check from a schema (the layer store runs in the server, never in the watchdog). */
function zodCheck<T>(schema: z.ZodType<T>): Check<T> {
  return (json) => {
    const parsed = schema.safeParse(json);
    return parsed.success
      ? { ok: true, value: parsed.data }
      : { ok: false, error: parsed.error.message };
  };
}

/** How much of a failed build's output its error quotes. */
const ERROR_TAIL_CHARS = 800;

export interface LocalLayerStoreOptions {
  /** `<stateDir>/layers`. */
  dir: string;
  /** Layer directories mounted by live sandboxes now: never pruned. */
  mounted?: () => string[];
  /** PATH and locale of build commands; the server's own environment (its secrets) is never passed. */
  hostEnv: HostEnv;
}

export class LocalLayerStore implements LayerStore {
  /** One build per layer at a time in this process; others wait for it. */
  private readonly inflight = new Map<string, Promise<BuiltLayer>>();

  constructor(private readonly o: LocalLayerStoreOptions) {}

  ensure(recipe: LayerRecipe, signal?: AbortSignal): Promise<BuiltLayer> {
    const id = layerId(recipe);
    const running = this.inflight.get(id);
    if (running) return running;
    const p = this.ensureOnce(recipe, id, signal).finally(() => this.inflight.delete(id));
    this.inflight.set(id, p);
    return p;
  }

  async readBoots(key: string): Promise<LayerBootRecord> {
    return readJson(this.bootsFile(key), zodCheck(layerBootRecordSchema)) ?? EMPTY_BOOT_RECORD;
  }

  async writeBoots(key: string, record: LayerBootRecord): Promise<void> {
    mkdirSync(join(this.o.dir, "boots"), { recursive: true, mode: 0o700 });
    writeJsonAtomic(this.bootsFile(key), record);
  }

  /**
   * Deletes old versions of `current`'s layer (layersToPrune decides): never one mounted by a
   * live sandbox, any instance's last good layer, or one being ensured in this process.
   */
  async prune(current: string): Promise<PrunedLayers> {
    const layers = this.onDisk();
    const protect = [
      ...(this.o.mounted?.() ?? []).map((d) => basename(d)),
      ...this.goodLayers(),
      ...this.inflight.keys(),
    ];
    const removed: string[] = [];
    for (const id of layersToPrune({ layers, current, protect })) {
      // Renamed first: a layer directory is either whole or gone, never half deleted.
      const aside = join(this.o.dir, `.pruned-${id}-${randomBytes(4).toString("hex")}`);
      await rename(join(this.o.dir, id), aside);
      rmSync(join(this.o.dir, `${id}.stat`), { force: true });
      rmSync(join(this.o.dir, `${id}.build.log`), { force: true });
      await removeTree(aside);
      removed.push(id);
    }
    return { removed, kept: layers.map((l) => l.id).filter((id) => !removed.includes(id)) };
  }

  /** Complete layers here (a readable manifest naming its own directory). */
  private onDisk(): LayerOnDisk[] {
    if (!existsSync(this.o.dir)) return [];
    const out: LayerOnDisk[] = [];
    for (const entry of readdirSync(this.o.dir, { withFileTypes: true })) {
      if (!entry.isDirectory() || entry.name.startsWith(".") || entry.name === "boots") continue;
      try {
        const m = readJson(join(this.o.dir, entry.name, LAYER_MANIFEST), zodCheck(manifestSchema));
        if (m && m.id === entry.name)
          out.push({ id: m.id, name: m.recipe.name, builtAt: m.builtAt });
      } catch {
        // Unreadable: not ours to judge here; ensure() refuses it when it is wanted.
      }
    }
    return out;
  }

  /** Every instance's last good layer (a rollback target). */
  private goodLayers(): string[] {
    const dir = join(this.o.dir, "boots");
    if (!existsSync(dir)) return [];
    return readdirSync(dir)
      .filter((f) => f.endsWith(".json"))
      .flatMap((f) => {
        try {
          return [readJson(join(dir, f), zodCheck(layerBootRecordSchema))?.good?.id ?? null].filter(
            (id): id is string => id !== null,
          );
        } catch {
          return [];
        }
      });
  }

  private bootsFile(key: string): string {
    if (!/^[A-Za-z0-9._-]{1,100}$/.test(key) || key.startsWith("."))
      throw new Error(`layer boot record key: unexpected ${JSON.stringify(key)}`);
    return join(this.o.dir, "boots", `${key}.json`);
  }

  private async ensureOnce(
    recipe: LayerRecipe,
    id: string,
    signal?: AbortSignal,
  ): Promise<BuiltLayer> {
    const t0 = Date.now();
    const dir = join(this.o.dir, id);
    mkdirSync(this.o.dir, { recursive: true, mode: 0o755 });
    let replacedBecause: string | undefined;
    if (existsSync(dir)) {
      const problem = await this.verify(id, dir, signal);
      if (problem === null) return { id, dir, action: "reused", ms: Date.now() - t0 };
      replacedBecause = problem;
      // Moved aside, not used and not repaired in place: a rebuild is the only trusted state.
      const aside = join(this.o.dir, `.altered-${id}-${randomBytes(4).toString("hex")}`);
      await rename(dir, aside);
      await removeTree(aside);
    }
    await this.build(recipe, id, dir, signal);
    return {
      id,
      dir,
      action: replacedBecause === undefined ? "built" : "rebuilt",
      ...(replacedBecause === undefined ? {} : { replacedBecause }),
      ms: Date.now() - t0,
    };
  }

  /** null when the layer is intact; otherwise what is wrong with it. */
  private async verify(id: string, dir: string, signal?: AbortSignal): Promise<string | null> {
    let manifest: z.output<typeof manifestSchema> | null;
    try {
      manifest = readJson(join(dir, LAYER_MANIFEST), zodCheck(manifestSchema));
    } catch (err) {
      return `its manifest is unreadable (${(err as Error).message.slice(0, 200)})`;
    }
    if (manifest === null) return "it has no manifest (an interrupted or foreign directory)";
    if (manifest.id !== id) return `its manifest names layer ${manifest.id}`;
    const statFile = join(this.o.dir, `${id}.stat`);
    const fingerprint = await statFingerprint(dir, signal);
    if (existsSync(statFile) && readFileSync(statFile, "utf8").trim() === fingerprint) return null;
    // Something moved the change times (a copy, a touch, or an edit): the bytes decide.
    const actual = await contentHash(dir, signal);
    if (actual !== manifest.contentHash) {
      return `its content hash is ${actual.slice(0, 12)}…, the manifest says ${manifest.contentHash.slice(0, 12)}… (files were changed after the build)`;
    }
    writeFileSync(statFile, `${fingerprint}\n`);
    return null;
  }

  private async build(
    recipe: LayerRecipe,
    id: string,
    dir: string,
    signal?: AbortSignal,
  ): Promise<void> {
    const t0 = Date.now();
    const tmp = join(this.o.dir, `.build-${id}-${randomBytes(4).toString("hex")}`);
    const log = join(this.o.dir, `${id}.build.log`);
    mkdirSync(tmp, { mode: 0o755 });
    writeFileSync(log, ""); // this build's output only
    const home = join(this.o.dir, ".home");
    mkdirSync(home, { recursive: true, mode: 0o700 });
    // HOME under the layers dir: npm's default cache lands there and is reused by a rebuild.
    const env: Record<string, string> = {
      PATH: this.o.hostEnv.PATH,
      LANG: this.o.hostEnv.LANG ?? "C.UTF-8",
      HOME: home,
      ...recipe.buildEnv,
    };
    try {
      for (const [i, command] of recipe.build.entries()) {
        const code = await runStep(command, tmp, env, log, signal);
        if (code !== 0) {
          throw new LayerBuildError(
            `layer ${id}: build step ${i + 1}/${recipe.build.length} failed (${code}): ${tail(log)}`,
          );
        }
      }
      await makeReadOnly(tmp);
      const hash = await contentHash(tmp, signal);
      await chmod(tmp, 0o755);
      writeJsonAtomic(join(tmp, LAYER_MANIFEST), {
        format: 1,
        id,
        recipe,
        contentHash: hash,
        builtAt: Date.now(),
        buildMs: Date.now() - t0,
      });
      await makeReadOnly(tmp);
      await rename(tmp, dir).catch(async (err: NodeJS.ErrnoException) => {
        // Another server process published the same layer first: theirs is as good as ours.
        if (err.code !== "ENOTEMPTY" && err.code !== "EEXIST") throw err;
        await removeTree(tmp);
      });
      writeFileSync(join(this.o.dir, `${id}.stat`), `${await statFingerprint(dir, signal)}\n`);
    } catch (err) {
      await removeTree(tmp).catch(() => undefined);
      if (err instanceof LayerBuildError) throw err;
      throw new LayerBuildError(`layer ${id}: build failed: ${(err as Error).message}`);
    }
  }
}

/** One build command; its output is appended to `logFile`. Resolves with its exit code or signal. */
function runStep(
  command: string,
  cwd: string,
  env: Record<string, string>,
  logFile: string,
  signal?: AbortSignal,
): Promise<string | number> {
  const fd = openSync(logFile, "a");
  try {
    const child = spawn("sh", ["-c", command], {
      cwd,
      env: env as unknown as NodeJS.ProcessEnv,
      stdio: ["ignore", fd, fd],
      detached: true, // its own group, so an abort stops npm's children too
    });
    const onAbort = () => {
      if (child.pid !== undefined) {
        try {
          process.kill(-child.pid, "SIGKILL");
        } catch {
          // Already gone.
        }
      }
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    return new Promise((resolve) => {
      child.on("error", (err) => resolve(`could not start: ${err.message}`));
      child.on("exit", (code, sig) => {
        signal?.removeEventListener("abort", onAbort);
        resolve(code ?? `signal ${sig}`);
      });
    });
  } finally {
    closeSync(fd);
  }
}

function tail(file: string): string {
  try {
    const text = readFileSync(file, "utf8").trim();
    return text.length > ERROR_TAIL_CHARS ? `…${text.slice(-ERROR_TAIL_CHARS)}` : text;
  } catch {
    return "(no output)";
  }
}

import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Logger } from "pino";
import { bundlePath } from "../../bundles";
import {
  type CreateSandboxOptions,
  type ProviderCapabilities,
  ProviderError,
  SandboxNotFoundError,
  type SandboxProvider,
  type SandboxSummary,
  type SnapshotInfo,
  SnapshotNotFoundError,
  UnsupportedNetworkPolicyError,
} from "../types";
import type { HostEnv } from "./commands";
import { allocateHostPorts } from "./host-ports";
import { isSandboxId, newSandboxId } from "./ids";
import { LocalLayerStore } from "./layer-store";
import { LocalSandbox } from "./local-sandbox";
import {
  readJson,
  type SandboxMeta,
  sandboxLayout,
  sandboxMetaSchema,
  writeJsonAtomic,
  writeState,
} from "./sandbox-meta";
import { tarAvailable } from "./snapshot-archive";
import { SnapshotStore } from "./snapshot-store";
import { WarmNodePool } from "./warm-node-pool";
import { launchWatchdog, stopWatchdog } from "./watchdog-launcher";

export interface LocalProviderOptions {
  /** Sandboxes live in <stateDir>/sandboxes, snapshots in <stateDir>/snapshots. */
  stateDir: string;
  /**
   * Where agent layers and the warm Node pool live, shared by several agents' providers
   * (docs/several-agents.md); default: stateDir.
   */
  sharedDir?: string;
  logger: Logger;
  /** SIGTERM → SIGKILL grace on stop and expiry. Default 3 s. */
  killGraceMs?: number;
  /** Longest the watchdog sleeps between looks at the sandbox while its deadline is far. */
  watchdogPollMs?: number;
  /** Longest snapshot() waits for every process to be frozen. Default 10 s. */
  freezeTimeoutMs?: number;
  /** The bundled watchdog (default: build/bundles/local-watchdog.js). */
  watchdogBundle?: string;
  /** PATH/LANG/TZ for sandbox processes (from the env module); default: node's dir and the system bins. */
  hostEnv?: HostEnv;
  /** Stopped sandboxes whose metadata and logs are kept (the newest); older ones are removed. Default 20. */
  keepStopped?: number;
  /**
   * Boot a Node process while a sandbox is created, for its first detached `node <script>`
   * (the sidecar): docs/local-provider.md, "Warm Node". Default true.
   */
  warmNode?: boolean;
  /** The bundled warm Node program (default: build/bundles/local-warm-node.js). */
  warmNodeBundle?: string;
}

/** Directories and processes on this machine: any snapshot restores; no policy enforcement, no TTL cap. */
export const LOCAL_CAPABILITIES: ProviderCapabilities = {
  restoreAnySnapshot: true,
  resumable: false,
  snapshotStops: false,
  ownsRetention: false,
  enforcesNetworkPolicy: false,
  maxLifetimeMs: null,
  sharedLayers: true,
  layerTemplates: null,
};

/** Pure: the stopped sandboxes beyond the newest `keep`, which can be removed from disk. */
export function stoppedToPrune(sandboxes: readonly SandboxSummary[], keep: number): string[] {
  return sandboxes
    .filter((s) => s.status === "stopped")
    .sort((a, b) => b.createdAt - a.createdAt || b.id.localeCompare(a.id))
    .slice(keep)
    .map((s) => s.id);
}

/** Pure: rejects create options the local provider cannot honour, before anything is made. */
export function validateCreateOptions(opts: CreateSandboxOptions): void {
  const policy = opts.networkPolicy ?? "allow-all";
  if (policy !== "allow-all") throw new UnsupportedNetworkPolicyError("local", policy);
  if (!Number.isInteger(opts.timeoutMs) || opts.timeoutMs <= 0) {
    throw new ProviderError(`timeoutMs must be a positive integer, got ${opts.timeoutMs}`);
  }
  for (const port of [...opts.ports, ...(opts.internalPorts ?? [])]) {
    if (!Number.isInteger(port) || port < 1 || port > 65535) {
      throw new ProviderError(`invalid sandbox port ${port}`);
    }
  }
  const both = (opts.internalPorts ?? []).filter((p) => opts.ports.includes(p));
  if (both.length > 0) {
    throw new ProviderError(`port ${both[0]} cannot be both exposed and internal`);
  }
}

/**
 * Sandboxes as directories plus process groups on this machine (see docs/local-provider.md
 * for what that does and does not isolate). All state is on disk, so a new provider object —
 * e.g. after a server restart — sees every sandbox and snapshot the previous one made.
 */
export class LocalProvider implements SandboxProvider {
  readonly name = "local";
  readonly capabilities = LOCAL_CAPABILITIES;
  private readonly sandboxesDir: string;
  private readonly snapshots: SnapshotStore;
  /** Agent layers, shared by every sandbox of this state directory (`<stateDir>/layers`). */
  readonly layers: LocalLayerStore;
  /** Port allocation and the meta write that claims the ports happen one create at a time. */
  private claimChain: Promise<unknown> = Promise.resolve();
  private readonly warm: WarmNodePool | null;

  constructor(private readonly opts: LocalProviderOptions) {
    this.sandboxesDir = join(opts.stateDir, "sandboxes");
    this.snapshots = new SnapshotStore(join(opts.stateDir, "snapshots"));
    this.layers = new LocalLayerStore({
      dir: join(opts.sharedDir ?? opts.stateDir, "layers"),
      hostEnv: this.hostEnv(),
      mounted: () => this.mountedLayers(),
    });
    const host = this.hostEnv();
    this.warm =
      opts.warmNode === false
        ? null
        : new WarmNodePool({
            dir: join(opts.sharedDir ?? opts.stateDir, "warm"),
            bundle: opts.warmNodeBundle ?? bundlePath("localWarmNode"),
            // What sandboxEnv gives every process: a command with exactly these runs warm.
            boot: {
              PATH: host.PATH,
              LANG: host.LANG ?? "C.UTF-8",
              ...(host.TZ ? { TZ: host.TZ } : {}),
            },
            logger: opts.logger,
          });
  }

  /** Layer directories linked into sandboxes that are not stopped. */
  private mountedLayers(): string[] {
    return this.all()
      .filter((s) => s.status !== "stopped")
      .flatMap((s) => {
        try {
          return [readFileSync(sandboxLayout(join(this.sandboxesDir, s.id)).mountedLayer, "utf8")];
        } catch {
          return [];
        }
      });
  }

  private hostEnv(): HostEnv {
    return (
      this.opts.hostEnv ?? { PATH: `${dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin` }
    );
  }

  async create(opts: CreateSandboxOptions): Promise<LocalSandbox> {
    validateCreateOptions(opts);
    if (opts.snapshotId !== undefined && !this.snapshots.get(opts.snapshotId)) {
      throw new SnapshotNotFoundError(opts.snapshotId);
    }
    // Boots while the snapshot is restored; the sidecar launched after runs in it.
    this.warm?.prepare();
    const id = newSandboxId();
    const layout = sandboxLayout(join(this.sandboxesDir, id));
    mkdirSync(this.sandboxesDir, { recursive: true, mode: 0o700 });
    mkdirSync(layout.dir, { mode: 0o700 });
    mkdirSync(layout.root, { mode: 0o755 });
    try {
      if (opts.snapshotId !== undefined) await this.snapshots.restore(opts.snapshotId, layout.root);
      // Written before meta.json: a sandbox becomes visible (get/list) only complete.
      writeState(layout, "running", null);
      const meta = await this.claim(async () => {
        const meta: SandboxMeta = {
          version: 1,
          id,
          createdAt: Date.now(),
          timeoutMs: opts.timeoutMs,
          ...(await this.allocate(opts)),
          labels: { ...opts.labels },
          networkPolicy: "allow-all",
          sourceSnapshotId: opts.snapshotId ?? null,
          killGraceMs: this.opts.killGraceMs ?? 3_000,
          watchdogPollMs: this.opts.watchdogPollMs ?? 1_000,
        };
        writeJsonAtomic(layout.meta, meta);
        return meta;
      });
      launchWatchdog(
        layout,
        this.opts.watchdogBundle ?? bundlePath("localWatchdog"),
        this.hostEnv().PATH,
      );
      this.opts.logger.info(
        {
          sandboxId: id,
          snapshotId: opts.snapshotId,
          ports: meta.ports,
          timeoutMs: meta.timeoutMs,
        },
        "local sandbox created",
      );
      this.pruneStopped();
      return this.sandbox(meta);
    } catch (err) {
      stopWatchdog(layout);
      rmSync(layout.dir, { recursive: true, force: true });
      if (err instanceof SnapshotNotFoundError || err instanceof ProviderError) throw err;
      const message = err instanceof Error ? err.message : String(err);
      throw new ProviderError(`could not create a local sandbox: ${message}`, err);
    }
  }

  async get(id: string): Promise<LocalSandbox> {
    const meta = isSandboxId(id) ? this.readMeta(id) : null;
    if (!meta) throw new SandboxNotFoundError(id);
    return this.sandbox(meta);
  }

  async list(): Promise<SandboxSummary[]> {
    return this.all()
      .map((s) => ({ id: s.id, status: s.status, createdAt: s.createdAt, labels: { ...s.labels } }))
      .sort((a, b) => b.createdAt - a.createdAt);
  }

  listSnapshots(): Promise<SnapshotInfo[]> {
    return this.snapshots.list();
  }

  deleteSnapshot(id: string): Promise<void> {
    return this.snapshots.delete(id);
  }

  async check(): Promise<void> {
    try {
      mkdirSync(this.opts.stateDir, { recursive: true });
      const probe = join(this.opts.stateDir, `.probe-${process.pid}`);
      writeFileSync(probe, "ok");
      rmSync(probe);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      throw new ProviderError(`state dir ${this.opts.stateDir} is not writable: ${message}`, err);
    }
    if (!tarAvailable()) throw new ProviderError("the local provider needs `tar` on PATH");
  }

  private sandbox(meta: SandboxMeta): LocalSandbox {
    return new LocalSandbox({
      layout: sandboxLayout(join(this.sandboxesDir, meta.id)),
      meta,
      snapshots: this.snapshots,
      logger: this.opts.logger,
      hostEnv: this.hostEnv(),
      freezeTimeoutMs: this.opts.freezeTimeoutMs ?? 10_000,
      warm: this.warm,
    });
  }

  private readMeta(id: string): SandboxMeta | null {
    return readJson(join(this.sandboxesDir, id, "meta.json"), sandboxMetaSchema);
  }

  private all(): LocalSandbox[] {
    let names: string[];
    try {
      names = readdirSync(this.sandboxesDir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return [];
      throw err;
    }
    return names.flatMap((name) => {
      const meta = isSandboxId(name) ? this.readMeta(name) : null;
      return meta ? [this.sandbox(meta)] : [];
    });
  }

  /** Host ports for the exposed and the internal ports, drawn together so none repeats. */
  private async allocate(
    opts: CreateSandboxOptions,
  ): Promise<Pick<SandboxMeta, "ports" | "internalPorts">> {
    const internal = opts.internalPorts ?? [];
    const all = await allocateHostPorts([...opts.ports, ...internal], await this.portsInUse());
    const pick = (ports: number[]) =>
      Object.fromEntries(ports.map((p) => [String(p), all[String(p)] as number]));
    return { ports: pick(opts.ports), internalPorts: pick(internal) };
  }

  /** Host ports held by sandboxes that are not stopped (their processes may bind them any time). */
  private async portsInUse(): Promise<Set<number>> {
    const taken = new Set<number>();
    for (const s of this.all()) {
      if (s.status === "stopped") continue;
      for (const port of Object.values(s.hostPorts)) taken.add(port);
      for (const port of Object.values(s.internalHostPorts)) taken.add(port);
    }
    return taken;
  }

  /** Each wake leaves a stopped sandbox's small directory behind; keep the newest, drop the rest. */
  private pruneStopped(): void {
    const summaries = this.all().map((s) => ({
      id: s.id,
      status: s.status,
      createdAt: s.createdAt,
      labels: {},
    }));
    for (const id of stoppedToPrune(summaries, this.opts.keepStopped ?? 20)) {
      rmSync(join(this.sandboxesDir, id), { recursive: true, force: true });
    }
  }

  private claim<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.claimChain.then(fn, fn);
    this.claimChain = next.catch(() => undefined);
    return next;
  }
}

import { constants } from "node:fs";
import { mkdir, open, rm, stat, symlink, writeFile } from "node:fs/promises";
import { basename, dirname, isAbsolute, join } from "node:path";
import type { Logger } from "pino";
import type { NetworkPolicy } from "../../../config/schema";
import { LISTEN_HOST_ENV, portEnvName } from "../../../protocol/constants";
import {
  type CommandResult,
  type DetachedCommand,
  type ManagedSandbox,
  PathEscapeError,
  ProviderError,
  type RunCommandOptions,
  type SandboxFile,
  type SandboxStatus,
  UnsupportedNetworkPolicyError,
} from "../types";
import { type HostEnv, runDetached, runForeground, sandboxEnv } from "./commands";
import { isSameProcessAlive, selfIdentity } from "./proc";
import {
  freezeGroups,
  groupAlive,
  pruneProcessRecords,
  readProcessRecords,
  recordProcess,
  signalGroup,
  terminateGroups,
  thawGroups,
} from "./process-groups";
import {
  type ProcessRecord,
  processIdentitySchema,
  readJson,
  type SandboxLayout,
  type SandboxMeta,
  sandboxMetaSchema,
  sandboxStateSchema,
  writeJsonAtomic,
  writeState,
} from "./sandbox-meta";
import { resolveInRoot } from "./sandbox-paths";
import { deriveStatus } from "./sandbox-status";
import { detectFormat } from "./snapshot-archive";
import type { SnapshotStore } from "./snapshot-store";
import type { WarmNodePool } from "./warm-node-pool";
import { stopWatchdog, watchdogAlive } from "./watchdog-launcher";

export interface LocalSandboxDeps {
  layout: SandboxLayout;
  meta: SandboxMeta;
  snapshots: SnapshotStore;
  logger: Logger;
  /** How long snapshot() waits for every process to be frozen before giving up. */
  freezeTimeoutMs: number;
  /** The host basics processes inherit (PATH, LANG, TZ); never the server's secrets. */
  hostEnv: Readonly<HostEnv>;
  /** A Node process booted ahead for the next detached `node` command (null: always cold). */
  warm?: WarmNodePool | null;
}

/** Pure: the environment entries that tell processes inside where their ports really are. */
export function portEnv(ports: Readonly<Record<string, number>>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(ports).map(([declared, host]) => [portEnvName(Number(declared)), String(host)]),
  );
}

/**
 * One local sandbox. Holds no state of its own beyond the directory it points at: every
 * getter re-reads disk and /proc, so two objects (or two server processes) agree.
 */
export class LocalSandbox implements ManagedSandbox {
  readonly id: string;
  readonly createdAt: number;
  readonly root: string;
  readonly baseEnv: Readonly<Record<string, string>>;
  /** Set at create; list() reports them. */
  readonly labels: Readonly<Record<string, string>>;
  /** Exposed sandbox port → host port on 127.0.0.1 (what domain() resolves). */
  readonly hostPorts: Readonly<Record<string, number>>;
  /** Internal sandbox port → host port its processes bind; never resolved by domain(). */
  readonly internalHostPorts: Readonly<Record<string, number>>;
  private readonly layout: SandboxLayout;
  private cachedMeta: SandboxMeta;

  constructor(private readonly deps: LocalSandboxDeps) {
    this.layout = deps.layout;
    this.cachedMeta = deps.meta;
    this.id = deps.meta.id;
    this.createdAt = deps.meta.createdAt;
    this.root = deps.layout.root;
    this.baseEnv = Object.freeze({
      ...portEnv({ ...deps.meta.internalPorts, ...deps.meta.ports }),
      // Sandboxes share the host's network: the door listens on loopback, where it is mapped.
      [LISTEN_HOST_ENV]: "127.0.0.1",
    });
    this.labels = Object.freeze({ ...deps.meta.labels });
    this.hostPorts = Object.freeze({ ...deps.meta.ports });
    this.internalHostPorts = Object.freeze({ ...deps.meta.internalPorts });
  }

  private meta(): SandboxMeta {
    this.cachedMeta = readJson(this.layout.meta, sandboxMetaSchema) ?? this.cachedMeta;
    return this.cachedMeta;
  }

  get status(): SandboxStatus {
    try {
      const state = readJson(this.layout.state, sandboxStateSchema);
      if (state?.status === "stopped" || state?.status === "failed") return state.status;
      const meta = this.meta();
      const freeze = readJson(this.layout.freeze, processIdentitySchema);
      return deriveStatus({
        persisted: state?.status ?? "running",
        now: Date.now(),
        deadline: meta.createdAt + meta.timeoutMs,
        watchdogAlive: watchdogAlive(this.layout),
        anyProcessAlive: readProcessRecords(this.layout).some(groupAlive),
        freezeHeld: freeze !== null && isSameProcessAlive(freeze),
      });
    } catch (err) {
      this.deps.logger.warn({ err, sandboxId: this.id }, "unreadable local sandbox state");
      return "failed";
    }
  }

  get timeout(): number {
    return this.meta().timeoutMs;
  }

  private ensure(action: string, allowed: SandboxStatus[] = ["running"]): void {
    const status = this.status;
    if (!allowed.includes(status)) {
      throw new ProviderError(`cannot ${action}: sandbox ${this.id} is ${status}`);
    }
  }

  runCommand(cmd: string, args?: string[]): Promise<CommandResult>;
  runCommand(opts: RunCommandOptions & { detached: true }): Promise<DetachedCommand>;
  runCommand(opts: RunCommandOptions): Promise<CommandResult>;
  async runCommand(
    cmdOrOpts: string | RunCommandOptions,
    args?: string[],
  ): Promise<CommandResult | DetachedCommand> {
    const opts = typeof cmdOrOpts === "string" ? { cmd: cmdOrOpts, args } : cmdOrOpts;
    this.ensure("run a command");
    const cwd = await resolveInRoot(this.root, opts.cwd ?? ".");
    const isDir = await stat(cwd).then(
      (s) => s.isDirectory(),
      () => false,
    );
    if (!isDir) throw new ProviderError(`cwd "${opts.cwd}" is not a directory in the sandbox`);
    pruneProcessRecords(this.layout);
    const spec = {
      layout: this.layout,
      cmd: opts.cmd,
      args: opts.args ?? [],
      cwd,
      env: sandboxEnv(this.root, this.baseEnv, opts.env, this.deps.hostEnv),
      onStarted: (rec: ProcessRecord) => this.adopt(rec),
      signal: opts.signal,
    };
    if (!opts.detached) return runForeground(spec);
    const rec = await runDetached(spec, this.deps.warm ?? undefined);
    return { commandId: rec.commandId, pid: rec.pid };
  }

  /**
   * Records the new group, then re-checks: if the watchdog expired the sandbox (or a snapshot
   * froze it) in between, the newcomer would escape both, so it is killed instead.
   */
  private adopt(rec: ProcessRecord): void {
    recordProcess(this.layout, rec);
    const status = this.status;
    if (status !== "running") {
      signalGroup(rec, "SIGKILL");
      throw new ProviderError(`cannot run a command: sandbox ${this.id} is ${status}`);
    }
  }

  async writeFiles(files: SandboxFile[]): Promise<void> {
    this.ensure("write files");
    for (const file of files) {
      const target = await resolveInRoot(this.root, file.path);
      await mkdir(dirname(target), { recursive: true });
      // O_NOFOLLOW: a symlink swapped in after the check is refused, not followed.
      const flags =
        constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW;
      const handle = await open(target, flags, file.mode ?? 0o644).catch((err) => {
        throw (err as NodeJS.ErrnoException).code === "ELOOP"
          ? new PathEscapeError(file.path)
          : err;
      });
      try {
        await handle.writeFile(file.content);
        // The open mode is masked by umask and ignored for existing files.
        if (file.mode !== undefined) await handle.chmod(file.mode);
      } finally {
        await handle.close();
      }
    }
  }

  /**
   * A symlink at `at` to the shared, read-only layer (outside the root, so tar archives the
   * link, not the layer). Whatever was there is replaced: an older link, or the in-sandbox
   * install an older snapshot carried.
   */
  async mountLayer(layerDir: string, at: string): Promise<void> {
    this.ensure("mount a layer");
    if (!isAbsolute(layerDir)) throw new ProviderError(`layer dir "${layerDir}" is not absolute`);
    // The parent must lie inside the root; the last component is the link itself, not followed.
    const parent = await resolveInRoot(this.root, dirname(at));
    const target = join(parent, basename(at));
    if (basename(at) === ".." || basename(at) === ".") throw new PathEscapeError(at);
    await rm(target, { recursive: true, force: true });
    await mkdir(parent, { recursive: true });
    // Recorded first, so pruning never deletes a layer a live sandbox links to.
    await writeFile(this.layout.mountedLayer, layerDir);
    await symlink(layerDir, target);
  }

  async readFile(path: string): Promise<Buffer | null> {
    this.ensure("read a file", ["running", "snapshotting"]);
    const target = await resolveInRoot(this.root, path);
    try {
      const handle = await open(target, constants.O_RDONLY | constants.O_NOFOLLOW);
      try {
        return await handle.readFile();
      } finally {
        await handle.close();
      }
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === "ENOENT" || code === "ENOTDIR") return null;
      if (code === "ELOOP") throw new PathEscapeError(path);
      throw err;
    }
  }

  async stop(): Promise<void> {
    const before = readJson(this.layout.state, sandboxStateSchema);
    const alreadyStopped = before?.status === "stopped" || before?.status === "failed";
    if (!alreadyStopped) writeState(this.layout, "stopping", "stopped");
    // Processes first, watchdog last: if this server dies half-way, the TTL still holds.
    await terminateGroups(readProcessRecords(this.layout), this.meta().killGraceMs);
    stopWatchdog(this.layout);
    await rm(this.layout.freeze, { force: true });
    await rm(this.layout.root, { recursive: true, force: true });
    if (!alreadyStopped) {
      writeState(this.layout, "stopped", "stopped");
      this.deps.logger.info({ sandboxId: this.id }, "local sandbox stopped");
    }
  }

  async snapshot(): Promise<{ id: string }> {
    this.ensure("snapshot");
    // Announce the freeze before reading the groups: adopt() then refuses newcomers, and the
    // watchdog thaws everything should this process die while they are frozen.
    writeJsonAtomic(this.layout.freeze, selfIdentity());
    const started = Date.now();
    try {
      await freezeGroups(readProcessRecords(this.layout), this.deps.freezeTimeoutMs);
      const meta = await this.deps.snapshots.capture(this.root, this.id, detectFormat());
      this.deps.logger.info(
        {
          sandboxId: this.id,
          snapshotId: meta.id,
          sizeBytes: meta.sizeBytes,
          ms: Date.now() - started,
        },
        "local sandbox snapshot taken",
      );
      return { id: meta.id };
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      throw new ProviderError(`snapshot of sandbox ${this.id} failed: ${message}`, err);
    } finally {
      thawGroups(readProcessRecords(this.layout));
      await rm(this.layout.freeze, { force: true });
    }
  }

  async extendTimeout(ms: number): Promise<void> {
    if (!Number.isFinite(ms) || ms <= 0) {
      throw new ProviderError(`extendTimeout: expected a positive number of ms, got ${ms}`);
    }
    this.ensure("extend the timeout");
    const meta = this.meta();
    writeJsonAtomic(this.layout.meta, { ...meta, timeoutMs: meta.timeoutMs + Math.ceil(ms) });
    // The watchdog may have fired between the check and the write.
    this.ensure("extend the timeout");
  }

  async updateNetworkPolicy(policy: NetworkPolicy): Promise<void> {
    if (policy !== "allow-all") throw new UnsupportedNetworkPolicyError("local", policy);
    this.ensure("update the network policy");
  }

  domain(port: number): string {
    const host = this.hostPorts[String(port)];
    if (host === undefined && this.internalHostPorts[String(port)] !== undefined) {
      throw new ProviderError(
        `port ${port} of sandbox ${this.id} is internal: it is reached only from inside the sandbox (through the sidecar's door)`,
      );
    }
    if (host === undefined) {
      const declared = Object.keys(this.hostPorts).join(", ") || "none";
      throw new ProviderError(
        `port ${port} was not declared when sandbox ${this.id} was created (declared: ${declared})`,
      );
    }
    return `http://127.0.0.1:${host}`;
  }
}

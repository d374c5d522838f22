import type { Sandbox } from "@vercel/sandbox";
import type { Logger } from "pino";
import {
  type CreateSandboxOptions,
  type ManagedSandbox,
  type ProviderCapabilities,
  ProviderError,
  type ResumeOptions,
  SandboxNotFoundError,
  type SandboxProvider,
  type SandboxSummary,
  type SnapshotInfo,
  SnapshotNotFoundError,
} from "../types";
import { sdkFetch } from "./api-routing";
import { vercelCapabilities } from "./capabilities";
import type { VercelConfig, VercelEnv } from "./config";
import { apiFailure, mapSdkError, sdkCall } from "./errors";
import { cappedTimeout } from "./lifetime";
import {
  namedSnapshots,
  ownedSnapshots,
  type SandboxRecord,
  stoppedToPrune,
  toSummary,
} from "./listing";
import {
  isSandboxName,
  isSnapshotId,
  MAX_TAGS,
  OWNER_TAG,
  persistentName,
  snapshotModeName,
  tagsFor,
} from "./naming";
import { toSdkNetworkPolicy } from "./network-policy";
import { vercelSdk } from "./sdk";
import { VercelSandbox } from "./vercel-sandbox";

export interface VercelProviderOptions {
  config: VercelConfig;
  env: VercelEnv;
  /** The instance name: every sandbox is tagged with it and list() shows only those. */
  instance: string;
  logger: Logger;
}

/** Vercel lists at most 50 records per page. */
const PAGE = 50;
/** Ports a sandbox may expose (the SDK's documented limit). */
const MAX_PORTS = 15;

/** Pure: create options Vercel cannot honour, refused before anything is made. */
export function validateCreateOptions(opts: CreateSandboxOptions): void {
  if (opts.ports.length > MAX_PORTS) {
    throw new ProviderError(
      `a Vercel sandbox exposes at most ${MAX_PORTS} ports, got ${opts.ports.length}`,
    );
  }
  // Internal ports need nothing on a microVM (its loopback is its own): only checked here.
  for (const port of [...opts.ports, ...(opts.internalPorts ?? [])]) {
    if (!Number.isInteger(port) || port < 1 || port > 65535) {
      throw new ProviderError(`invalid sandbox port ${port}`);
    }
  }
  const labels = Object.keys(opts.labels ?? {});
  if (labels.includes(OWNER_TAG))
    throw new ProviderError(`the label "${OWNER_TAG}" is ClawRun's own`);
  if (labels.length + 1 > MAX_TAGS) {
    throw new ProviderError(
      `a Vercel sandbox carries at most ${MAX_TAGS} tags and ClawRun uses one: at most ${MAX_TAGS - 1} labels, got ${labels.length}`,
    );
  }
}

/**
 * Sandboxes as Vercel Sandbox microVMs through @vercel/sandbox (docs/vercel-sandbox.md).
 * Snapshot mode: a new non-persistent sandbox per wake, from ClawRun's chosen snapshot.
 * Persistent mode (docs/vercel-sandbox.md): one named sandbox per instance that stop() saves and resume()
 * brings back; nothing here ever creates a sandbox implicitly in its place.
 */
export class VercelProvider implements SandboxProvider {
  readonly name = "vercel";
  readonly capabilities: ProviderCapabilities;
  /** Persistent mode only (capabilities.resumable). */
  readonly resume?: (id: string, opts: ResumeOptions) => Promise<ManagedSandbox>;
  private readonly fetch: typeof globalThis.fetch;

  constructor(private readonly opts: VercelProviderOptions) {
    this.capabilities = vercelCapabilities(opts.config);
    this.fetch = sdkFetch(opts.env.apiUrl);
    if (opts.config.mode === "persistent") this.resume = (id, o) => this.resumeNamed(id, o);
  }

  /** What every SDK entry point takes: explicit credentials (never its own env lookup), fetch, signal. */
  private common(signal?: AbortSignal) {
    const { token, teamId, projectId } = this.opts.env.credentials;
    return { token, teamId, projectId, fetch: this.fetch, signal };
  }

  private wrap(sdk: Sandbox): VercelSandbox {
    return new VercelSandbox(sdk, {
      capMs: this.capabilities.maxLifetimeMs,
      apiUrl: this.opts.env.apiUrl,
      logger: this.opts.logger,
    });
  }

  async create(opts: CreateSandboxOptions): Promise<VercelSandbox> {
    validateCreateOptions(opts);
    const { config, instance } = this.opts;
    if (opts.snapshotId !== undefined && !isSnapshotId(opts.snapshotId)) {
      throw new SnapshotNotFoundError(opts.snapshotId);
    }
    // Everything that can be refused is checked before the named sandbox is replaced.
    const timeout = cappedTimeout(opts.timeoutMs, this.capabilities.maxLifetimeMs);
    const networkPolicy = opts.networkPolicy ? toSdkNetworkPolicy(opts.networkPolicy) : undefined;
    // A worker is always a throwaway sandbox, whatever the mode: it must not replace the agent's.
    const persistent = config.mode === "persistent" && opts.purpose !== "worker";
    const name = persistent ? persistentName(instance) : snapshotModeName(instance);
    if (persistent) await this.discardNamed(name, opts.signal);
    const base = {
      name,
      persistent,
      ports: opts.ports,
      timeout,
      resources: opts.resources,
      networkPolicy,
      tags: tagsFor(instance, opts.labels),
      region: config.region,
      ...(persistent ? { keepLastSnapshots: { count: config.keepLastSnapshots } } : {}),
      ...this.common(opts.signal),
    };
    const environment = config.runtime
      ? { runtime: config.runtime }
      : config.image
        ? { image: config.image }
        : {};
    const { Sandbox } = await vercelSdk();
    const sdk = await sdkCall({ action: "create a sandbox", snapshotId: opts.snapshotId }, () =>
      opts.snapshotId !== undefined
        ? Sandbox.create({ ...base, source: { type: "snapshot", snapshotId: opts.snapshotId } })
        : Sandbox.create({ ...base, ...environment }),
    );
    const sandbox = this.wrap(sdk);
    this.opts.logger.info(
      {
        sandboxId: sandbox.id,
        snapshotId: opts.snapshotId,
        timeoutMs: sandbox.timeout,
        persistent,
      },
      "vercel sandbox created",
    );
    if (config.mode === "snapshot") this.pruneInBackground();
    return sandbox;
  }

  /**
   * Persistent mode's wake: resumes the named sandbox with its saved files. A sandbox that is
   * gone, or whose saved state is gone, is SandboxNotFoundError — never a fresh empty one.
   */
  private async resumeNamed(id: string, opts: ResumeOptions): Promise<VercelSandbox> {
    if (!isSandboxName(id)) throw new SandboxNotFoundError(id);
    const wanted = cappedTimeout(opts.timeoutMs, this.capabilities.maxLifetimeMs);
    const { Sandbox } = await vercelSdk();
    const sdk = await sdkCall({ action: "resume the sandbox", sandboxId: id }, () =>
      Sandbox.get({ name: id, resume: true, ...this.common(opts.signal) }),
    );
    const sandbox = this.wrap(sdk);
    // A resumed session gets the sandbox's default timeout; top it up to what this wake wants.
    if (sandbox.status === "running" && sandbox.timeout < wanted) {
      await sandbox.extendTimeout(wanted - sandbox.timeout, opts.signal);
    }
    this.opts.logger.info({ sandboxId: id, timeoutMs: sandbox.timeout }, "vercel sandbox resumed");
    return sandbox;
  }

  /** Persistent mode's create is "start fresh": the instance's named sandbox is replaced. */
  private async discardNamed(name: string, signal?: AbortSignal): Promise<void> {
    const { Sandbox } = await vercelSdk();
    let existing: Sandbox;
    try {
      existing = await Sandbox.get({ name, resume: false, ...this.common(signal) });
    } catch (err) {
      if (apiFailure(err)?.status === 404) return;
      throw mapSdkError(err, { action: "look up the named sandbox", sandboxId: name });
    }
    if (existing.tags?.[OWNER_TAG] !== this.opts.instance) {
      throw new ProviderError(
        `a sandbox named "${name}" exists but is not tagged ${OWNER_TAG}=${this.opts.instance}; refusing to replace it`,
      );
    }
    this.opts.logger.warn(
      { sandboxId: name },
      "replacing the persistent sandbox: its files are discarded (start fresh)",
    );
    await sdkCall({ action: "delete the named sandbox", sandboxId: name }, () =>
      existing.delete({ signal }),
    );
  }

  async get(id: string, signal?: AbortSignal): Promise<VercelSandbox> {
    if (!isSandboxName(id)) throw new SandboxNotFoundError(id);
    // resume: false — looking must never start a stopped sandbox.
    const { Sandbox } = await vercelSdk();
    const sdk = await sdkCall({ action: "get the sandbox", sandboxId: id }, () =>
      Sandbox.get({ name: id, resume: false, ...this.common(signal) }),
    );
    if (sdk.tags?.[OWNER_TAG] !== this.opts.instance) throw new SandboxNotFoundError(id);
    return this.wrap(sdk);
  }

  private async ownedSandboxes(signal?: AbortSignal): Promise<SandboxRecord[]> {
    const { Sandbox } = await vercelSdk();
    const tags = { [OWNER_TAG]: this.opts.instance };
    return sdkCall({ action: "list sandboxes" }, async () => {
      const pages = await Sandbox.list({ tags, limit: PAGE, ...this.common(signal) });
      return pages.toArray();
    });
  }

  async list(signal?: AbortSignal): Promise<SandboxSummary[]> {
    const records = await this.ownedSandboxes(signal);
    return records.map(toSummary).sort((a, b) => b.createdAt - a.createdAt);
  }

  async listSnapshots(signal?: AbortSignal): Promise<SnapshotInfo[]> {
    const { Snapshot } = await vercelSdk();
    if (this.opts.config.mode === "persistent") {
      const name = persistentName(this.opts.instance);
      const snapshots = await sdkCall({ action: "list snapshots" }, async () =>
        (await Snapshot.list({ name, limit: PAGE, ...this.common(signal) })).toArray(),
      );
      return namedSnapshots(name, snapshots);
    }
    return (await this.snapshotModeRecords(signal)).snapshots;
  }

  /** Snapshot mode: the instance's sandboxes, and the project's snapshots taken from them. */
  private async snapshotModeRecords(signal?: AbortSignal) {
    const { Snapshot } = await vercelSdk();
    const [sandboxes, all] = await Promise.all([
      this.ownedSandboxes(signal),
      sdkCall({ action: "list snapshots" }, async () =>
        (await Snapshot.list({ limit: PAGE, ...this.common(signal) })).toArray(),
      ),
    ]);
    return { sandboxes, snapshots: ownedSnapshots(sandboxes, all) };
  }

  /** Only this instance's snapshots can be deleted; any other id is "not found". */
  async deleteSnapshot(id: string, signal?: AbortSignal): Promise<void> {
    if (!isSnapshotId(id)) throw new SnapshotNotFoundError(id);
    const owned = await this.listSnapshots(signal);
    if (!owned.some((s) => s.id === id)) throw new SnapshotNotFoundError(id);
    const { Snapshot } = await vercelSdk();
    await sdkCall({ action: "delete the snapshot", snapshotId: id }, async () => {
      const snapshot = await Snapshot.get({ snapshotId: id, ...this.common(signal) });
      await snapshot.delete({ signal });
    });
    this.opts.logger.info({ snapshotId: id }, "vercel snapshot deleted");
  }

  /** One cheap authenticated call: proves the credentials, team, project and routing work. */
  async check(signal?: AbortSignal): Promise<void> {
    const { Sandbox } = await vercelSdk();
    const tags = { [OWNER_TAG]: this.opts.instance };
    await sdkCall({ action: "list sandboxes (health check)" }, () =>
      Sandbox.list({ tags, limit: 1, ...this.common(signal) }),
    );
  }

  /** Best effort, off the wake path: a failure is logged and retried after the next create. */
  private pruneInBackground(): void {
    this.pruneStopped().catch((err: unknown) =>
      this.opts.logger.warn(
        { err: err instanceof Error ? err.message : String(err) },
        "pruning stopped vercel sandboxes failed",
      ),
    );
  }

  private async pruneStopped(): Promise<void> {
    const { sandboxes, snapshots } = await this.snapshotModeRecords();
    const { Sandbox } = await vercelSdk();
    for (const name of stoppedToPrune(sandboxes, snapshots, this.opts.config.keepStopped)) {
      await sdkCall({ action: "delete a stopped sandbox", sandboxId: name }, async () => {
        const sdk = await Sandbox.get({ name, resume: false, ...this.common() });
        await sdk.delete();
      });
    }
  }
}

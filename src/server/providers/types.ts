import type { Logger } from "pino";
import type { z } from "zod";
import type { NetworkPolicy } from "../../config/schema";
import { ClawrunError } from "../../protocol/clawrun-error";
import type { LayerBootStore, LayerRecipe, LayerStore } from "../layers/types";
import type { SandboxCost, SandboxCostFacts } from "./cost-types";

/**
 * The SandboxProvider / ManagedSandbox port (docs/architecture.md, "Providers"). Members the
 * original port lists are marked "port"; every addition says in one line why the lifecycle
 * needs it. Every async method takes an optional AbortSignal: a caller that gives up (a
 * route's time budget, a lost lock) stops waiting on the provider.
 */

export type SandboxStatus =
  | "pending"
  | "running"
  | "stopping"
  | "stopped"
  | "failed"
  | "snapshotting";

export interface CommandResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

export interface RunCommandOptions {
  cmd: string;
  args?: string[];
  env?: Record<string, string>;
  /** Relative to the sandbox root, or absolute inside it. Default: the root. */
  cwd?: string;
  /** Return at once; the process lives on inside the sandbox until it exits or the sandbox stops. */
  detached?: boolean;
  signal?: AbortSignal;
}

export interface DetachedCommand {
  commandId: string;
  pid: number | null;
}

export interface SandboxFile {
  /** Relative to the sandbox root, or absolute inside it. */
  path: string;
  content: Buffer | string;
  /** Addition: file mode (e.g. 0o755 for an executable provisioned script). */
  mode?: number;
}

export interface ManagedSandbox {
  /** port */ readonly id: string;
  /** port: current status (re-read from the provider's truth on every access where cheap). */
  readonly status: SandboxStatus;
  /** port: total native timeout in ms, including extensions. */
  readonly timeout: number;
  /** port: creation time (epoch ms). */
  readonly createdAt: number;
  /** Addition: absolute path of the sandbox root (the agent's home); written into the sidecar config. */
  readonly root: string;
  /** Addition: environment every process in the sandbox gets from the provider (e.g. mapped ports). */
  readonly baseEnv: Readonly<Record<string, string>>;

  /** port */
  runCommand(cmd: string, args?: string[]): Promise<CommandResult>;
  runCommand(opts: RunCommandOptions & { detached: true }): Promise<DetachedCommand>;
  runCommand(opts: RunCommandOptions): Promise<CommandResult>;
  /** port */
  writeFiles(files: SandboxFile[], signal?: AbortSignal): Promise<void>;
  /** port: null when the file does not exist. */
  readFile(path: string, signal?: AbortSignal): Promise<Buffer | null>;
  /** port: stops every process; the sandbox's filesystem is discarded (snapshots survive). */
  stop(signal?: AbortSignal): Promise<void>;
  /** port: captures the filesystem; the sandbox keeps running. */
  snapshot(signal?: AbortSignal): Promise<{ id: string }>;
  /** port: pushes the native TTL forward by `ms`. */
  extendTimeout(ms: number, signal?: AbortSignal): Promise<void>;
  /** port: a policy the provider cannot enforce is refused (UnsupportedNetworkPolicyError), never ignored. */
  updateNetworkPolicy(policy: NetworkPolicy, signal?: AbortSignal): Promise<void>;
  /** port: URL that reaches `port` inside the sandbox from the ClawRun server. */
  domain(port: number): string;
  /** Addition, optional: usage as of the provider's last answer (providers that bill by use). */
  readonly usage?: SandboxUsage;
  /**
   * Addition, `sharedLayers` providers only: makes the layer directory `layerDir` (from the
   * provider's `layers`) appear read-only at `at` (relative to the root), replacing whatever
   * is there. A snapshot holds the mount point, never the layer's files.
   */
  mountLayer?(layerDir: string, at: string, signal?: AbortSignal): Promise<void>;
}

export interface CreateSandboxOptions {
  /** port: restore this snapshot into the new sandbox. */
  snapshotId?: string;
  /** Addition: native TTL in ms (lifecycle: activeDuration × 10). */
  timeoutMs: number;
  /**
   * Addition: ports reachable from outside through domain() — only the sidecar's door (3001):
   * ClawRun never talks to the daemon directly (docs/sidecar.md, "The door").
   */
  ports: number[];
  /**
   * Addition: ports processes listen on inside the sandbox that nothing outside may reach (the
   * daemon's, on loopback behind the door). A provider whose sandboxes share the host's
   * network gives each a free host port and tells the processes (CLAWRUN_PORT_<port>), but
   * never routes nor advertises it: domain() refuses it. A microVM needs nothing for them.
   */
  internalPorts?: number[];
  /** Addition: resources requested from the provider. */
  resources?: { vcpus: number };
  /** Addition: network policy applied from the first instruction. */
  networkPolicy?: NetworkPolicy;
  /** Addition: labels for ownership (e.g. the instance name), visible through list(). */
  labels?: Record<string, string>;
  /**
   * Addition: "worker" is a short-lived sandbox for one command, never the agent's own (a
   * resumable provider makes it a throwaway one rather than replacing its named sandbox).
   */
  purpose?: "agent" | "worker";
  signal?: AbortSignal;
}

export interface ResumeOptions {
  /** Native TTL from now, in ms. */
  timeoutMs: number;
  signal?: AbortSignal;
}

export interface SandboxSummary {
  id: string;
  status: SandboxStatus;
  createdAt: number;
  labels: Record<string, string>;
}

export interface SnapshotInfo {
  id: string;
  createdAt: number;
  sourceSandboxId: string;
  sizeBytes: number;
  /** Addition: when the provider deletes it on its own (epoch ms); null = never, absent = unknown. */
  expiresAt?: number | null;
}

/** Addition: what a sandbox has consumed so far, as far as its provider reports it (cost on the dashboard). */
export interface SandboxUsage {
  /** CPU time actually used, summed over the sandbox's sessions; null when not reported. */
  activeCpuMs: number | null;
  /** Wall-clock time its sessions ran. */
  wallMs: number | null;
  ingressBytes: number | null;
  egressBytes: number | null;
}

/**
 * What the lifecycle may rely on. It branches on these, never on a provider's name.
 */
export interface ProviderCapabilities {
  /** Any stored snapshot can seed a new sandbox ("wake from this" on the dashboard). */
  restoreAnySnapshot: boolean;
  /**
   * Sleeping keeps the sandbox itself: stop() saves its files and `resume()` brings the same
   * sandbox back (persistent named sandboxes). Without it, sleep is snapshot() then stop().
   */
  resumable: boolean;
  /** snapshot() also stops the sandbox; an operator "snapshot now" then means "sleep now". */
  snapshotStops: boolean;
  /** The provider deletes old snapshots itself, so ClawRun's count-based retention is skipped. */
  ownsRetention: boolean;
  /** Network policies other than "allow-all" are enforced; a provider without it refuses them. */
  enforcesNetworkPolicy: boolean;
  /**
   * The longest a sandbox may live from its creation, extensions included (a plan's cap);
   * null when unbounded. The lifecycle snapshots and stops before reaching it.
   */
  maxLifetimeMs: number | null;
  /**
   * Agent layers (runtime + package, DESIGN.md invariant 9) are built once by the provider and
   * mounted into each sandbox (`layers`, `mountLayer`), so snapshots hold only the agent's
   * state. Without it the agent installs itself inside the sandbox.
   */
  sharedLayers: boolean;
  /**
   * Agent layers go into a template snapshot per layer version instead (a provider whose
   * sandboxes are created from snapshots of other sandboxes and cannot mount a host
   * directory): the lifecycle builds the template once and creates every agent sandbox from
   * it; the agent's state is saved apart as an archive in ClawRun's store when it is at most
   * `maxStateArchiveBytes`, and as a full snapshot otherwise. Null: not supported.
   */
  layerTemplates: { maxStateArchiveBytes: number } | null;
}

export interface SandboxProvider {
  readonly name: string;
  readonly capabilities: ProviderCapabilities;
  /**
   * Addition, `resumable` providers only: starts a stopped sandbox again with its files
   * (persistent mode's wake). Throws SandboxNotFoundError when it no longer exists: a
   * resumable provider never silently creates an empty one in its place.
   */
  resume?(id: string, opts: ResumeOptions): Promise<ManagedSandbox>;
  /** port */
  create(opts: CreateSandboxOptions): Promise<ManagedSandbox>;
  /** port: throws SandboxNotFoundError for an unknown id. */
  get(id: string, signal?: AbortSignal): Promise<ManagedSandbox>;
  /** port */
  list(signal?: AbortSignal): Promise<SandboxSummary[]>;
  /** port: newest first. */
  listSnapshots(signal?: AbortSignal): Promise<SnapshotInfo[]>;
  /** port: throws SnapshotNotFoundError for an unknown id. */
  deleteSnapshot(id: string, signal?: AbortSignal): Promise<void>;
  /** Addition: readiness for /api/health (e.g. state dir writable, API reachable). */
  check(signal?: AbortSignal): Promise<void>;
  /** Addition, `sharedLayers` providers only: where agent layers are built and kept. */
  readonly layers?: LayerStore;
  /**
   * Addition, `layerTemplates` providers only: the layer a sandbox was created on (from its
   * template), so the start can record whether the agent booted on it; and where those boot
   * records are kept (the upgrade's rollback memory).
   */
  templateLayerOf?(sandboxId: string): { id: string; recipe: LayerRecipe } | null;
  readonly layerBoots?: LayerBootStore;
}

export class SandboxNotFoundError extends ClawrunError {
  static override readonly errorName = "SandboxNotFoundError";
  /** `detail` replaces the default message (e.g. "its saved state expired"). */
  constructor(
    readonly sandboxId: string,
    detail?: string,
  ) {
    super("sandbox_not_found", detail ?? `sandbox "${sandboxId}" does not exist`, { status: 404 });
  }
}

export class SnapshotNotFoundError extends ClawrunError {
  static override readonly errorName = "SnapshotNotFoundError";
  constructor(readonly snapshotId: string) {
    super("snapshot_not_found", `snapshot "${snapshotId}" does not exist`, { status: 404 });
  }
}

export class UnsupportedNetworkPolicyError extends ClawrunError {
  static override readonly errorName = "UnsupportedNetworkPolicyError";
  constructor(provider: string, policy: NetworkPolicy) {
    super(
      "unsupported_network_policy",
      `the ${provider} provider cannot enforce network policy ${JSON.stringify(policy)}; ` +
        'refusing to run without it (use "allow-all" or a provider that enforces policies)',
      { status: 400 },
    );
  }
}

export class PathEscapeError extends ClawrunError {
  static override readonly errorName = "PathEscapeError";
  constructor(readonly path: string) {
    super("path_escape", `path "${path}" is outside the sandbox root`, { status: 400 });
  }
}

/** Any other provider failure, carrying the provider's own message. */
export class ProviderError extends ClawrunError {
  static override readonly errorName = "ProviderError";
  constructor(message: string, cause?: unknown) {
    super("provider_error", message, { status: 502, cause });
  }
}

/** What a provider factory receives from the composition root. */
export interface ProviderContext<Config = unknown, Env = unknown> {
  /** Its own section of clawrun.json (`sandbox.<name>`), parsed by its configSchema. */
  config: Config;
  /** The environment variables it declared, parsed by its envSchema (credentials). */
  env: Env;
  /** The instance name: label sandboxes with it so orphans can be found. */
  instance: string;
  /** ClawRun's state directory, shared by the deployment's agents (the local provider's layers). */
  stateDir: string;
  /**
   * This agent's own directory under it (docs/several-agents.md): the local provider keeps the
   * agent's sandboxes and snapshots there. `stateDir` itself for a one-agent deployment.
   */
  agentStateDir: string;
  logger: Logger;
  /** PATH/LANG/TZ that processes a provider runs on this machine may inherit. */
  hostEnv: { PATH: string; LANG?: string; TZ?: string };
}

/**
 * A sandbox provider as one module: `src/server/providers/<name>/index.ts` exports one of
 * these and `src/server/providers/index.ts` lists it. The clawrun.json enum for
 * `sandbox.provider`, the `sandbox.<name>` section and the env requirements derive from it.
 */
export interface ProviderModule<Config = unknown, Env = unknown> {
  readonly name: string;
  /** One line for docs and the dashboard. */
  readonly description: string;
  /** `sandbox.<name>` in clawrun.json; must accept `{}` (all defaults). */
  readonly configSchema: z.ZodType<Config>;
  /** Credentials it reads from the environment (validated at start, named when missing). */
  readonly envSchema: z.ZodType<Env>;
  capabilities(config: Config): ProviderCapabilities;
  create(ctx: ProviderContext<Config, Env>): SandboxProvider;
  /** Optional, pure: this month's sandbox bill at the provider's list prices (the cost card). */
  cost?(facts: SandboxCostFacts): SandboxCost;
}

import type { NetworkPolicy } from "../../config/schema";
import { isErrorNamed } from "../../protocol/named-error";

/**
 * The SandboxProvider / ManagedSandbox port (seed 003). Members the seed lists are marked
 * "seed"; every addition says in one line why the lifecycle needs it.
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
  /** seed */ readonly id: string;
  /** seed: current status (re-read from the provider's truth on every access where cheap). */
  readonly status: SandboxStatus;
  /** seed: total native timeout in ms, including extensions. */
  readonly timeout: number;
  /** seed: creation time (epoch ms). */
  readonly createdAt: number;
  /** Addition: absolute path of the sandbox root (the agent's home); written into the sidecar config. */
  readonly root: string;
  /** Addition: environment every process in the sandbox gets from the provider (e.g. mapped ports). */
  readonly baseEnv: Readonly<Record<string, string>>;

  /** seed */
  runCommand(cmd: string, args?: string[]): Promise<CommandResult>;
  runCommand(opts: RunCommandOptions & { detached: true }): Promise<DetachedCommand>;
  runCommand(opts: RunCommandOptions): Promise<CommandResult>;
  /** seed */
  writeFiles(files: SandboxFile[]): Promise<void>;
  /** seed: null when the file does not exist. */
  readFile(path: string): Promise<Buffer | null>;
  /** seed: stops every process; the sandbox's filesystem is discarded (snapshots survive). */
  stop(): Promise<void>;
  /** seed: captures the filesystem; the sandbox keeps running. */
  snapshot(): Promise<{ id: string }>;
  /** seed: pushes the native TTL forward by `ms`. */
  extendTimeout(ms: number): Promise<void>;
  /** seed: a policy the provider cannot enforce is refused (UnsupportedNetworkPolicyError), never ignored. */
  updateNetworkPolicy(policy: NetworkPolicy): Promise<void>;
  /** seed: URL that reaches `port` inside the sandbox from the ClawRun server. */
  domain(port: number): string;
}

export interface CreateSandboxOptions {
  /** seed: restore this snapshot into the new sandbox. */
  snapshotId?: string;
  /** Addition: native TTL in ms (lifecycle: activeDuration × 10). */
  timeoutMs: number;
  /** Addition: ports processes listen on inside the sandbox (daemon 3000, sidecar 3001). */
  ports: number[];
  /** Addition: resources requested from the provider. */
  resources?: { vcpus: number };
  /** Addition: network policy applied from the first instruction. */
  networkPolicy?: NetworkPolicy;
  /** Addition: labels for ownership (e.g. the instance name), visible through list(). */
  labels?: Record<string, string>;
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
}

export interface ProviderCapabilities {
  /** Any stored snapshot can seed a new sandbox ("wake from this" on the dashboard). */
  restoreAnySnapshot: boolean;
}

export interface SandboxProvider {
  readonly name: string;
  readonly capabilities: ProviderCapabilities;
  /** seed */
  create(opts: CreateSandboxOptions): Promise<ManagedSandbox>;
  /** seed: throws SandboxNotFoundError for an unknown id. */
  get(id: string): Promise<ManagedSandbox>;
  /** seed */
  list(): Promise<SandboxSummary[]>;
  /** seed: newest first. */
  listSnapshots(): Promise<SnapshotInfo[]>;
  /** seed: throws SnapshotNotFoundError for an unknown id. */
  deleteSnapshot(id: string): Promise<void>;
  /** Addition: readiness for /api/health (e.g. state dir writable, API reachable). */
  check(): Promise<void>;
}

export class SandboxNotFoundError extends Error {
  static override [Symbol.hasInstance](value: unknown): boolean {
    return isErrorNamed(value, "SandboxNotFoundError");
  }

  constructor(readonly sandboxId: string) {
    super(`sandbox "${sandboxId}" does not exist`);
    this.name = "SandboxNotFoundError";
  }
}

export class SnapshotNotFoundError extends Error {
  static override [Symbol.hasInstance](value: unknown): boolean {
    return isErrorNamed(value, "SnapshotNotFoundError");
  }

  constructor(readonly snapshotId: string) {
    super(`snapshot "${snapshotId}" does not exist`);
    this.name = "SnapshotNotFoundError";
  }
}

export class UnsupportedNetworkPolicyError extends Error {
  static override [Symbol.hasInstance](value: unknown): boolean {
    return isErrorNamed(value, "UnsupportedNetworkPolicyError");
  }

  constructor(provider: string, policy: NetworkPolicy) {
    super(
      `the ${provider} provider cannot enforce network policy ${JSON.stringify(policy)}; ` +
        'refusing to run without it (use "allow-all" or a provider that enforces policies)',
    );
    this.name = "UnsupportedNetworkPolicyError";
  }
}

export class PathEscapeError extends Error {
  static override [Symbol.hasInstance](value: unknown): boolean {
    return isErrorNamed(value, "PathEscapeError");
  }

  constructor(readonly path: string) {
    super(`path "${path}" is outside the sandbox root`);
    this.name = "PathEscapeError";
  }
}

/** Any other provider failure, carrying the provider's own message. */
export class ProviderError extends Error {
  static override [Symbol.hasInstance](value: unknown): boolean {
    return isErrorNamed(value, "ProviderError");
  }

  constructor(
    message: string,
    override readonly cause?: unknown,
  ) {
    super(message);
    this.name = "ProviderError";
  }
}

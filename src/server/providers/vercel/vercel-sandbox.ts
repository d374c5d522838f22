import type { Sandbox, Session } from "@vercel/sandbox";
import type { Logger } from "pino";
import type { NetworkPolicy } from "../../../config/schema";
import {
  type CommandResult,
  type DetachedCommand,
  type ManagedSandbox,
  ProviderError,
  type RunCommandOptions,
  type SandboxFile,
  type SandboxStatus,
  type SandboxUsage,
} from "../types";
import { routeSandboxDomain } from "./api-routing";
import { apiFailure, type CallContext, mapSdkError, sdkCall } from "./errors";
import { planExtension } from "./lifetime";
import { toSandboxStatus } from "./listing";
import { OWNER_TAG } from "./naming";
import { toSdkNetworkPolicy } from "./network-policy";
import { resolveSandboxPath } from "./sandbox-paths";

export interface VercelSandboxDeps {
  /** The plan's cap on a session's life (ms). */
  capMs: number | null;
  /** CLAWRUN_VERCEL_API_URL, or null for Vercel itself. */
  apiUrl: string | null;
  logger: Logger;
}

/**
 * One Vercel sandbox, as of the provider's last answer about it: getters never call the API
 * (provider.get() re-reads). Every call goes to the current session directly, never through
 * the SDK's Sandbox methods: those resume a stopped sandbox on their own (a fresh, empty VM
 * for a non-persistent one), and ClawRun decides when a sandbox runs.
 */
export class VercelSandbox implements ManagedSandbox {
  readonly baseEnv: Readonly<Record<string, string>> = Object.freeze({});

  constructor(
    private readonly sdk: Sandbox,
    private readonly deps: VercelSandboxDeps,
  ) {}

  private get session(): Session {
    return this.sdk.currentSession();
  }

  /** The sandbox's name: the API's identifier, stable across its sessions. */
  get id(): string {
    return this.sdk.name;
  }

  get status(): SandboxStatus {
    return toSandboxStatus(this.session.status);
  }

  /** The session's total timeout: Vercel counts it from the session's start. */
  get timeout(): number {
    return this.session.timeout;
  }

  /** When the current session (the VM) started, the instant its timeout counts from. */
  get createdAt(): number {
    return (this.session.startedAt ?? this.session.createdAt).getTime();
  }

  /** The session's working directory (/vercel/sandbox on Vercel). */
  get root(): string {
    return this.session.cwd;
  }

  /** The caller's labels (the ownership tag is the provider's own). */
  get labels(): Record<string, string> {
    const { [OWNER_TAG]: _owner, ...labels } = this.sdk.tags ?? {};
    return labels;
  }

  get usage(): SandboxUsage {
    const transfer = this.session.networkTransfer;
    return {
      activeCpuMs: this.sdk.totalActiveCpuDurationMs ?? this.session.activeCpuUsageMs ?? null,
      wallMs: this.sdk.totalDurationMs ?? this.session.duration ?? null,
      ingressBytes: this.sdk.totalIngressBytes ?? transfer?.ingress ?? null,
      egressBytes: this.sdk.totalEgressBytes ?? transfer?.egress ?? null,
    };
  }

  private call<T>(action: string, fn: () => Promise<T>): Promise<T> {
    const ctx: CallContext = { action, sandboxId: this.id };
    return sdkCall(ctx, fn);
  }

  runCommand(cmd: string, args?: string[]): Promise<CommandResult>;
  runCommand(opts: RunCommandOptions & { detached: true }): Promise<DetachedCommand>;
  runCommand(opts: RunCommandOptions): Promise<CommandResult>;
  async runCommand(
    cmdOrOpts: string | RunCommandOptions,
    args?: string[],
  ): Promise<CommandResult | DetachedCommand> {
    const opts = typeof cmdOrOpts === "string" ? { cmd: cmdOrOpts, args } : cmdOrOpts;
    const params = {
      cmd: opts.cmd,
      args: opts.args ?? [],
      cwd: resolveSandboxPath(this.root, opts.cwd ?? "."),
      // The root is the agent's home on every provider (tools install under ~/.local).
      env: { HOME: this.root, ...opts.env },
      signal: opts.signal,
    };
    const session = this.session;
    if (opts.detached) {
      const started = await this.call("run a command", () =>
        session.runCommand({ ...params, detached: true }),
      );
      return { commandId: started.cmdId, pid: null };
    }
    return this.call("run a command", async () => {
      const done = await session.runCommand(params);
      const [stdout, stderr] = await Promise.all([
        done.stdout({ signal: opts.signal }),
        done.stderr({ signal: opts.signal }),
      ]);
      return { exitCode: done.exitCode, stdout, stderr };
    });
  }

  async writeFiles(files: SandboxFile[], signal?: AbortSignal): Promise<void> {
    const entries = files.map((f) => ({
      path: resolveSandboxPath(this.root, f.path),
      content: typeof f.content === "string" ? Buffer.from(f.content) : f.content,
      mode: f.mode,
    }));
    const session = this.session;
    await this.call("write files", () => session.writeFiles(entries, { signal }));
  }

  async readFile(path: string, signal?: AbortSignal): Promise<Buffer | null> {
    const absolute = resolveSandboxPath(this.root, path);
    const session = this.session;
    return this.call("read a file", () => session.readFileToBuffer({ path: absolute }, { signal }));
  }

  async stop(signal?: AbortSignal): Promise<void> {
    try {
      await this.sdk.stop({ signal });
    } catch (err) {
      // Stopping a stopped (410) or deleted (404) session is done: stop is idempotent on the port.
      const status = apiFailure(err)?.status;
      if (status === 410 || status === 404) return;
      throw mapSdkError(err, { action: "stop the sandbox", sandboxId: this.id });
    }
    this.deps.logger.info({ sandboxId: this.id }, "vercel sandbox stopped");
  }

  /** Vercel's snapshot stops the session as part of taking it (capabilities.snapshotStops). */
  async snapshot(signal?: AbortSignal): Promise<{ id: string }> {
    const session = this.session;
    const snap = await this.call("snapshot the sandbox", () => session.snapshot({ signal }));
    this.deps.logger.info(
      { sandboxId: this.id, snapshotId: snap.snapshotId, sizeBytes: snap.sizeBytes },
      "vercel sandbox snapshot taken",
    );
    return { id: snap.snapshotId };
  }

  async extendTimeout(ms: number, signal?: AbortSignal): Promise<void> {
    const plan = planExtension(this.session.timeout, ms, this.deps.capMs);
    if (!plan.ok) throw new ProviderError(`cannot extend sandbox ${this.id}: ${plan.reason}`);
    const session = this.session;
    await this.call("extend the timeout", () => session.extendTimeout(Math.ceil(ms), { signal }));
  }

  async updateNetworkPolicy(policy: NetworkPolicy, signal?: AbortSignal): Promise<void> {
    const networkPolicy = toSdkNetworkPolicy(policy);
    const session = this.session;
    await this.call("update the network policy", () =>
      session.update({ networkPolicy }, { signal }),
    );
  }

  domain(port: number): string {
    let sdkDomain: string;
    try {
      sdkDomain = this.session.domain(port);
    } catch {
      const declared = this.sdk.routes.map((r) => r.port).join(", ") || "none";
      throw new ProviderError(
        `port ${port} was not declared when sandbox ${this.id} was created (declared: ${declared})`,
      );
    }
    return routeSandboxDomain(sdkDomain, this.deps.apiUrl);
  }
}

import type { Logger } from "pino";
import type { LifecycleTimings } from "../config/constants";
import type { AppEnv } from "../config/env";
import type { LoadedConfig } from "../config/load-config";
import type { ResolvedSecrets } from "../config/secrets";
import type { SidecarTimings } from "../protocol/sidecar-config";
import type { Agent } from "./agents/types";
import type { Channel } from "./channels/types";
import type { WakeHook } from "./domain/wake-hook";
import type { WakeScheduler } from "./domain/wake-scheduler";
import type { GatewayRuntime } from "./model-gateway/runtime";
import type { SandboxProvider } from "./providers/types";
import type { SandboxLifecycleManager } from "./sandbox/manager";
import type { Store } from "./store/types";

/**
 * What the composition root (compose/context.ts) builds, as types only: a handler names the
 * parts it uses (`Pick<AppContext, "store" | "logger">`) without importing the builder.
 */
export interface AppContext {
  version: string;
  /** This agent's name (docs/several-agents.md): `instance.name` for a one-agent file. */
  agentName: string;
  /**
   * What the operator's sign-in belongs to, the same for every agent of the deployment: the
   * deployment's secrets (this context's `secrets` carry the agent's own CLAWRUN_SECRET) and
   * the default agent's store, where sessions, sign-outs and lock-outs are kept.
   */
  deployment: Pick<AppContext, "env" | "logger" | "secrets" | "store">;
  startedAt: number;
  env: AppEnv;
  config: LoadedConfig;
  secrets: ResolvedSecrets;
  logger: Logger;
  timings: LifecycleTimings;
  store: Store;
  provider: SandboxProvider;
  agent: Agent;
  channels: ReadonlyMap<string, Channel>;
  manager: SandboxLifecycleManager;
  /** One-shot wakes for cron jobs (QStash), or null: the daily cron / local timer only. */
  wakeScheduler: WakeScheduler | null;
  /** The model gateway's per-process part: its upstream, the settlements it still owes. */
  modelGateway: GatewayRuntime;
  clock: () => number;
  /** Closes the store (tests; the server keeps its context for its lifetime). */
  close(): Promise<void>;
}

/** What a test may change; the server uses none of it. */
export interface ContextOptions {
  /** Environment variables (default: process.env, read only by src/config/env.ts). */
  source?: Record<string, string | undefined>;
  /** The project directory (default: the working directory). */
  cwd?: string;
  clock?: () => number;
  /** Fault injection around the real provider. */
  wrapProvider?: (provider: SandboxProvider) => SandboxProvider;
  /** Measurement or fault injection around the real store (benches count commands). */
  wrapStore?: (store: Store) => Store;
  /** Another agent object (e.g. a command agent built by the test). */
  agent?: Agent;
  sidecarTimings?: Partial<SidecarTimings>;
  /** Extra wake hooks (tests record register/teardown calls). */
  hooks?: WakeHook[];
  logger?: Logger;
  /** Which agent of a several-agent clawrun.json (default: the default agent). */
  agentName?: string;
  /** The default agent's store (sessions live there); built by this call when not given. */
  deploymentStore?: Store;
}

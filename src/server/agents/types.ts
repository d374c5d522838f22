import type { z } from "zod";
import type { AgentConfigBase } from "../../config/schema";
import type { AgentCronJob, AgentMessage } from "../../protocol/agent-message";
import { ClawrunError } from "../../protocol/clawrun-error";
import type { GatewayRpcAnswer, GatewayRpcRequest } from "../../protocol/gateway-rpc";
import type { LayerRecipe } from "../layers/types";
import type { SandboxFile } from "../providers/types";

/** The agent port: what runs in the sandbox and how ClawRun talks to it. */
export interface AgentDaemonSpec {
  command: string;
  /**
   * `{PORT}` is replaced with the listen port by the sidecar, `{HOST}` with the loopback host
   * the daemon must bind (it also gets HOST and PORT in its environment).
   */
  args: string[];
  env: Record<string, string>;
  /** Declared port inside the sandbox. */
  port: number;
}

export interface DaemonRequestInit {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
}

/**
 * How ClawRun reaches a running daemon: only through the sidecar's signed door
 * (docs/sidecar.md, "The door"); the daemon binds loopback and its port is never exposed.
 */
export interface DaemonTransport {
  /**
   * `path` (starting with "/", query included) on the daemon. Resolves with the daemon's own
   * answer, whatever its status; rejects when the daemon cannot be reached (the sidecar does
   * not answer, refuses the request, or finds nothing listening) or when `signal` aborts.
   */
  fetch(path: string, init?: DaemonRequestInit): Promise<Response>;
  /**
   * One call over the daemon's WebSocket in OpenClaw's gateway frames (the door's
   * `/gateway-rpc`; ClawRun's own call, never the agent's activity). Resolves with the gateway's
   * answer or its refusal; rejects like `fetch` when the daemon cannot be reached, or when the
   * exchange breaks. Absent where the transport has no such route.
   */
  gatewayRpc?(call: GatewayRpcRequest, signal?: AbortSignal): Promise<GatewayRpcAnswer>;
  /** Where it leads, for messages ("sandbox sbx_…'s daemon (through its door)"). */
  readonly label: string;
  /** The sandbox behind the door (per-sandbox secrets such as a gateway token). */
  readonly sandboxId: string;
}

export interface DeliveryResult {
  reply: string;
  /** Extra fields of the daemon's answer (e.g. the echo agent's count), for the event log and API. */
  details: Record<string, unknown>;
}

/** An agent's answer to "may I snapshot you now?" (Agent.prepareSleep). */
export type SleepPrepareAnswer =
  /** `suspensionId`: what the agent needs to be resumed (OpenClaw's resume requires it). */
  | { ready: true; leaseMs: number; suspensionId?: string }
  | { ready: false; retryAfterMs: number; blockers?: string[] };

/** What the dashboard shows about the running agent. */
export interface AgentDescription {
  type: string;
  /** The agent program's pinned version; null when ClawRun does not pin one. */
  version: string | null;
  /** The model it uses, as `<provider>/<model>`; null for agents without one. */
  model: string | null;
}

export interface Agent {
  readonly name: string;
  /** How long one delivery may take (a real AI agent may think for a while). */
  readonly deliveryTimeoutMs: number;
  /**
   * How long a start may wait for the agent to become ready (its first install and start can
   * take minutes). Unset: the lifecycle's health budget (`healthBudgetMs`, 15 s).
   */
  readonly startupBudgetMs?: number;
  /**
   * Paths (relative to the sandbox root) whose changes are the agent's housekeeping, not
   * activity: they never keep the sandbox awake (passed to the sidecar's activityIgnore).
   */
  readonly activityIgnore?: readonly string[];
  /**
   * Readiness beyond an open port (the agent's own ready endpoint, through `door`). The start's
   * health wait calls it once the sidecar reports the daemon running, until it is true.
   */
  ready?(door: DaemonTransport, signal: AbortSignal): Promise<boolean>;
  /** Which agent, version and model runs (the dashboard shows it). */
  describe?(): AgentDescription;
  /**
   * What the agent *is* as a shared layer (runtime + package; DESIGN.md invariant 9). On a
   * provider with `sharedLayers` the lifecycle builds it once and mounts it at `mountAt`
   * before provisioning; elsewhere the agent installs itself (its files() must handle both).
   */
  layer?(): LayerRecipe;
  /** Files provisioned into the sandbox before the sidecar starts (paths relative to its root). */
  files(): Promise<SandboxFile[]>;
  daemon(): AgentDaemonSpec;
  /**
   * Secrets bound to one sandbox (e.g. a gateway token derived from CLAWRUN_SECRET and the
   * sandbox id), added to the daemon's environment. Like the rest of it they travel only in
   * the sidecar's process environment, never in a file (docs/sidecar.md, "Config").
   */
  sandboxEnv?(sandboxId: string): Record<string, string>;
  /**
   * The daemon variables that carry this boot's model credential (issued by ClawRun for the
   * sandbox, worthless outside it; the agent's config points at ClawRun's model gateway). An
   * agent with a model that declares none gets `CLAWRUN_MODEL_URL` and `CLAWRUN_MODEL_KEY`.
   */
  modelEnv?(credential: string): Record<string, string>;
  /**
   * Hands one message to the running daemon through `door`; throws AgentDeliveryError on
   * refusal and AgentUnreachableError when the door cannot reach it.
   */
  deliver(
    door: DaemonTransport,
    message: AgentMessage,
    signal: AbortSignal,
  ): Promise<DeliveryResult>;
  /**
   * The agent's own consent to a snapshot (issue 23, item 3; OpenClaw's
   * `gateway.suspend.prepare`): `ready` means it stopped taking turns for `leaseMs`; `busy`
   * means not now. Rejects when it cannot answer. Without it, the rest policy alone decides.
   */
  prepareSleep?(door: DaemonTransport, signal: AbortSignal): Promise<SleepPrepareAnswer>;
  /**
   * Ends a suspension `prepareSleep` began: after a failed snapshot (with its `suspensionId`),
   * and once after every wake (without one: an agent restored with its memory resumes whatever
   * it holds; one restarted from files holds nothing).
   */
  resumeAfterWake?(
    door: DaemonTransport,
    signal: AbortSignal,
    suspensionId?: string,
  ): Promise<void>;
  /** Cron jobs the agent itself asks for (optional), through `door`. */
  cronJobs?(door: DaemonTransport, signal: AbortSignal): Promise<AgentCronJob[]>;
}

/**
 * Nothing answered at the daemon's address (connection refused or reset): a lifecycle fact
 * about the sandbox, not a verdict on the message, so it never counts as a delivery attempt.
 */
export class AgentUnreachableError extends ClawrunError {
  static override readonly errorName = "AgentUnreachableError";
  constructor(message: string, cause?: unknown) {
    super("agent_unreachable", message, { status: 503, cause });
  }
}

/** The daemon answered and refused (or answered something unusable), or did not answer in time. */
export class AgentDeliveryError extends ClawrunError {
  static override readonly errorName = "AgentDeliveryError";
  constructor(
    message: string,
    /** The daemon's HTTP status, null when it sent none. */
    readonly daemonStatus: number | null,
  ) {
    super("agent_refused", message, { status: 502 });
  }
}

/** Where the agent's provisioned files live inside the sandbox root (housekeeping, not activity). */
export const PROVISION_DIR = ".clawrun";

/** What an agent factory receives from the composition root. */
export interface AgentContext {
  /** The daemon's environment with `{ "fromEnv" }` references resolved. */
  env: Record<string, string>;
  /** Directory that relative paths in clawrun.json are resolved against (the project). */
  projectDir: string;
  /**
   * Reads a variable of ClawRun's environment for a `{ "fromEnv" }` reference in the agent's
   * own section (ClawRun's secrets are refused: undefined).
   */
  passthrough(name: string): string | undefined;
  /** A stable secret for `purpose`, derived from CLAWRUN_SECRET (e.g. a gateway token). */
  deriveSecret(purpose: string): string;
  /**
   * ClawRun's model gateway as the sandbox reaches it (`<public URL>/api/model`; OpenAI-shaped
   * clients add `/v1`), or null when no public URL is known.
   */
  modelGatewayUrl: string | null;
}

/**
 * An agent type as one module: `src/server/agents/<type>/index.ts` exports one of these and
 * `src/server/agents/index.ts` lists it.
 */
export interface AgentModule<Config extends AgentConfigBase = AgentConfigBase> {
  /** The `agent.type` value. */
  readonly name: string;
  readonly description: string;
  /** `agent` in clawrun.json: an object whose `type` is the literal name. */
  readonly configSchema: z.ZodObject;
  /** Throws a ConfigError naming the key for configuration that cannot work. */
  create(config: Config, ctx: AgentContext): Agent;
}

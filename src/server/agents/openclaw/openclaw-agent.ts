import type { AgentMessage } from "../../../protocol/agent-message";
import type { LayerRecipe } from "../../layers/types";
import type { SandboxFile } from "../../providers/types";
import { launcherPath, launcherScript } from "../launcher";
import type { ModelChoice } from "../model-choice";
import type {
  Agent,
  AgentDaemonSpec,
  AgentDescription,
  DaemonTransport,
  DeliveryResult,
  SleepPrepareAnswer,
} from "../types";
import {
  GATEWAY_TOKEN_ENV,
  MODEL_KEY_ENV,
  OPENCLAW_LOG_DIR,
  OPENCLAW_STATE_DIR,
  openclawConfigFile,
  openclawModelEnv,
  openclawTokenEnv,
} from "./config-file";
import { deliverToOpenClaw } from "./delivery";
import { probeOpenClawReady } from "./health";
import {
  OPENCLAW_NODE_VERSION,
  OPENCLAW_VERSION,
  openclawPaths,
  openclawTool,
} from "./install-tool";
import { layerLauncherPrelude, openclawLayerRecipe } from "./layer";
import { prepareOpenClawSleep, resumeOpenClaw } from "./suspend";

/**
 * A first start installs Node and OpenClaw (~100 s here) and then starts the gateway (30-45 s
 * to /readyz; up to ~2 min after a restore on a loaded machine): docs/agents/openclaw.md,
 * "Measured". Ten minutes leaves room for a slow registry without waiting forever.
 */
export const OPENCLAW_STARTUP_BUDGET_MS = 10 * 60_000;

/**
 * What the gateway writes while idle (docs/agents/openclaw.md, "Idle writes"): its gateway
 * database's WAL and shared memory, and its own file log. The agent's session database and
 * workspace are not here: a turn writes them, and that is activity.
 */
export const OPENCLAW_ACTIVITY_IGNORE = [
  OPENCLAW_LOG_DIR,
  `${OPENCLAW_STATE_DIR}/state/openclaw.sqlite-wal`,
  `${OPENCLAW_STATE_DIR}/state/openclaw.sqlite-shm`,
] as const;

export interface OpenClawAgentOptions {
  model: ModelChoice;
  port: number;
  deliveryTimeoutMs: number;
  /** ClawRun's model gateway root (`<public URL>/api/model`): the config sends model calls there. */
  gatewayUrl: string;
  /**
   * The gateway's bearer token for one sandbox (derived from CLAWRUN_SECRET and the sandbox
   * id, never stored): in that daemon's environment and on every delivery to it.
   */
  gatewayToken: (sandboxId: string) => string;
  /** The user's `agent.env`, resolved. */
  env: Record<string, string>;
  npmCacheDir?: string;
}

/** OpenClaw (npm `openclaw`) as ClawRun's agent: installed by its launcher, reached through its gateway. */
export class OpenClawAgent implements Agent {
  readonly name = "openclaw";
  readonly deliveryTimeoutMs: number;
  readonly startupBudgetMs = OPENCLAW_STARTUP_BUDGET_MS;
  readonly activityIgnore: readonly string[] = OPENCLAW_ACTIVITY_IGNORE;

  constructor(private readonly o: OpenClawAgentOptions) {
    this.deliveryTimeoutMs = o.deliveryTimeoutMs;
  }

  async files(): Promise<SandboxFile[]> {
    // Rewritten at every start: a wake may listen on another port or use a changed model.
    const config = openclawConfigFile({
      model: this.o.model,
      port: this.o.port,
      gatewayUrl: this.o.gatewayUrl,
    });
    const tool = openclawTool(
      this.o.npmCacheDir === undefined ? {} : { npmCacheDir: this.o.npmCacheDir },
    );
    const wrapper = openclawPaths(OPENCLAW_VERSION, OPENCLAW_NODE_VERSION).wrapper;
    const launcher = launcherScript({
      name: this.name,
      tool,
      prelude: layerLauncherPrelude(),
      exec: `"$root/${wrapper}" gateway --port "$1"`,
      hideFromInstall: [MODEL_KEY_ENV, GATEWAY_TOKEN_ENV],
    });
    return [
      { path: config.path, content: config.content, mode: 0o600 },
      { path: launcherPath(this.name), content: launcher, mode: 0o755 },
    ];
  }

  layer(): LayerRecipe {
    return openclawLayerRecipe({
      arch: process.arch,
      ...(this.o.npmCacheDir === undefined ? {} : { npmCacheDir: this.o.npmCacheDir }),
    });
  }

  daemon(): AgentDaemonSpec {
    return {
      command: "sh",
      args: [launcherPath(this.name), "{PORT}"],
      env: { ...this.o.env },
      port: this.o.port,
    };
  }

  /** This sandbox's gateway token (the config's SecretRef). */
  sandboxEnv(sandboxId: string): Record<string, string> {
    return openclawTokenEnv(this.o.gatewayToken(sandboxId));
  }

  /** This boot's model credential (the config's SecretRef for the provider's key). */
  modelEnv(credential: string): Record<string, string> {
    return openclawModelEnv(credential);
  }

  deliver(
    door: DaemonTransport,
    message: AgentMessage,
    signal: AbortSignal,
  ): Promise<DeliveryResult> {
    return deliverToOpenClaw(door, this.o.gatewayToken(door.sandboxId), message, signal);
  }

  ready(door: DaemonTransport, signal: AbortSignal): Promise<boolean> {
    return probeOpenClawReady(door, signal);
  }

  /** OpenClaw's own consent (`gateway.suspend.prepare`, through the door's `/gateway-rpc`). */
  prepareSleep(door: DaemonTransport, signal: AbortSignal): Promise<SleepPrepareAnswer> {
    return prepareOpenClawSleep(door, this.o.gatewayToken(door.sandboxId), signal);
  }

  /** `gateway.suspend.resume` after a snapshot that did not happen; a restarted gateway holds none. */
  resumeAfterWake(
    door: DaemonTransport,
    signal: AbortSignal,
    suspensionId?: string,
  ): Promise<void> {
    return resumeOpenClaw(door, this.o.gatewayToken(door.sandboxId), signal, suspensionId);
  }

  describe(): AgentDescription {
    return {
      type: this.name,
      version: OPENCLAW_VERSION,
      model: `${this.o.model.provider}/${this.o.model.model}`,
    };
  }
}

import type { AgentMessage } from "../../../protocol/agent-message";
import type { SandboxFile } from "../../providers/types";
import { launcherPath, launcherScript } from "../launcher";
import type { ModelChoice } from "../model-choice";
import type {
  Agent,
  AgentDaemonSpec,
  AgentDescription,
  DaemonTransport,
  DeliveryResult,
} from "../types";
import {
  ZEROCLAW_CONFIG_DIR,
  zeroclawConfigFile,
  zeroclawKeyEnv,
  zeroclawModelEnv,
} from "./config-file";
import { deliverToZeroClaw } from "./delivery";
import { probeZeroClaw } from "./health";
import {
  ZEROCLAW_BIN,
  ZEROCLAW_VERSION,
  type ZeroClawToolOptions,
  zeroclawTool,
} from "./install-tool";

/**
 * A first start downloads and verifies one release archive, then starts a native binary: two
 * minutes is generous (the real binary has not been timed here: docs/agents/zeroclaw.md).
 */
export const ZEROCLAW_STARTUP_BUDGET_MS = 2 * 60_000;

export interface ZeroClawAgentOptions {
  model: ModelChoice;
  port: number;
  deliveryTimeoutMs: number;
  /** ClawRun's model gateway root (`<public URL>/api/model`): the config sends model calls there. */
  gatewayUrl: string;
  /** The gateway's bearer token (only its hash is written to the config file). */
  gatewayToken: string;
  /** The user's `agent.env`, resolved. */
  env: Record<string, string>;
  /** The release to install (tests serve a stand-in release on loopback). */
  tool?: ZeroClawToolOptions;
  /** Tests only: a shorter start budget. */
  startupBudgetMs?: number;
}

/** ZeroClaw (a pinned, checksum-verified release binary) as ClawRun's agent. */
export class ZeroClawAgent implements Agent {
  readonly name = "zeroclaw";
  readonly deliveryTimeoutMs: number;
  readonly startupBudgetMs: number;

  constructor(private readonly o: ZeroClawAgentOptions) {
    this.deliveryTimeoutMs = o.deliveryTimeoutMs;
    this.startupBudgetMs = o.startupBudgetMs ?? ZEROCLAW_STARTUP_BUDGET_MS;
  }

  async files(): Promise<SandboxFile[]> {
    const config = zeroclawConfigFile({
      model: this.o.model,
      port: this.o.port,
      gatewayUrl: this.o.gatewayUrl,
      gatewayToken: this.o.gatewayToken,
      // The gateway must not cut a turn shorter than ClawRun waits for it.
      requestTimeoutSecs: Math.ceil(this.deliveryTimeoutMs / 1000),
    });
    const launcher = launcherScript({
      name: this.name,
      tool: zeroclawTool(this.o.tool ?? {}),
      // Config, memory and sessions under the sandbox root, so they survive sleep and wake.
      prelude: [
        `export ZEROCLAW_CONFIG_DIR="\${ZEROCLAW_CONFIG_DIR:-$root/${ZEROCLAW_CONFIG_DIR}}"`,
      ],
      exec: `"$root/${ZEROCLAW_BIN}" daemon -p "$1" --host "$2"`,
      hideFromInstall: [zeroclawKeyEnv(this.o.model)],
    });
    return [
      { path: config.path, content: config.content, mode: 0o600 },
      { path: launcherPath(this.name), content: launcher, mode: 0o755 },
    ];
  }

  daemon(): AgentDaemonSpec {
    return {
      command: "sh",
      args: [launcherPath(this.name), "{PORT}", "{HOST}"],
      env: { ...this.o.env },
      port: this.o.port,
    };
  }

  /** This boot's model credential, as the provider entry's key (ZeroClaw's env override). */
  modelEnv(credential: string): Record<string, string> {
    return zeroclawModelEnv(this.o.model, credential);
  }

  deliver(
    door: DaemonTransport,
    message: AgentMessage,
    signal: AbortSignal,
  ): Promise<DeliveryResult> {
    return deliverToZeroClaw(door, this.o.gatewayToken, message, signal);
  }

  ready(door: DaemonTransport, signal: AbortSignal): Promise<boolean> {
    return probeZeroClaw(door, signal);
  }

  describe(): AgentDescription {
    return {
      type: this.name,
      version: this.o.tool?.version ?? ZEROCLAW_VERSION,
      model: `${this.o.model.provider}/${this.o.model.model}`,
    };
  }
}

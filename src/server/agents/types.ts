import type { AgentCronJob, AgentMessage } from "../../protocol/agent-message";
import type { SandboxFile } from "../providers/types";

/** The agent port: what runs in the sandbox and how ClawRun talks to it. */
export interface AgentDaemonSpec {
  command: string;
  /** `{PORT}` is replaced with the listen port by the sidecar. */
  args: string[];
  env: Record<string, string>;
  /** Declared port inside the sandbox. */
  port: number;
}

export interface DeliveryResult {
  reply: string;
  /** Extra fields of the daemon's answer (e.g. the echo agent's count), for the event log and API. */
  details: Record<string, unknown>;
}

export interface Agent {
  readonly name: string;
  /** How long one delivery may take (a real AI agent may think for a while). */
  readonly deliveryTimeoutMs: number;
  /** Files provisioned into the sandbox before the sidecar starts (paths relative to its root). */
  files(): Promise<SandboxFile[]>;
  daemon(): AgentDaemonSpec;
  /** Hands one message to the running daemon at `baseUrl`; throws AgentDeliveryError on refusal. */
  deliver(baseUrl: string, message: AgentMessage, signal: AbortSignal): Promise<DeliveryResult>;
  /** Cron jobs the agent itself asks for (optional). */
  cronJobs?(baseUrl: string, signal: AbortSignal): Promise<AgentCronJob[]>;
}

export class AgentDeliveryError extends Error {
  constructor(
    message: string,
    readonly status: number | null,
  ) {
    super(message);
    this.name = "AgentDeliveryError";
  }
}

/** Where the agent's provisioned files live inside the sandbox root (housekeeping, not activity). */
export const PROVISION_DIR = ".clawrun";

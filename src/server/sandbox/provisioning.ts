import type { ToolSpec } from "../../config/schema";
import { BYPASS_ENV, DAEMON_ENV_ENV, HB_SECRET_ENV, SANDBOX_PORTS } from "../../protocol/constants";
import type { SidecarConfigInput, SidecarTimings } from "../../protocol/sidecar-config";
import type { Agent } from "../agents/types";
import { PROVISION_DIR } from "../agents/types";
import { readBundle } from "../bundles";
import type { ManagedSandbox, SandboxFile } from "../providers/types";

/** docs/lifecycle.md, "Start and wake" steps 4: the agent, its config, the sidecar bundle and its config, then the sidecar. */

export const SIDECAR_FILE = `${PROVISION_DIR}/sidecar.js`;
export const SIDECAR_CONFIG_FILE = `${PROVISION_DIR}/sidecar.json`;

export interface ProvisionInput {
  sandbox: Pick<ManagedSandbox, "id" | "root" | "createdAt">;
  agent: Agent;
  parentUrl: string;
  tools: ToolSpec[];
  heartbeatIntervalMs: number;
  sidecarTimings?: Partial<SidecarTimings>;
}

/**
 * Pure: the sidecar's config file. It carries no secret and no daemon environment: a file in
 * the sandbox ends up in every snapshot (issue 22, item 1). The daemon's environment travels
 * in the sidecar's process environment instead (`launchSidecar`).
 */
export function buildSidecarConfig(input: ProvisionInput): SidecarConfigInput {
  const daemon = input.agent.daemon();
  return {
    sandboxId: input.sandbox.id,
    root: input.sandbox.root,
    sandboxCreatedAt: input.sandbox.createdAt,
    parentUrl: input.parentUrl,
    daemon: { command: daemon.command, args: daemon.args, port: daemon.port },
    healthPort: SANDBOX_PORTS.sidecar,
    tools: input.tools,
    activityIgnore: [...(input.agent.activityIgnore ?? [])],
    timings: { ...input.sidecarTimings, heartbeatIntervalMs: input.heartbeatIntervalMs },
  };
}

export async function provisionFiles(input: ProvisionInput): Promise<SandboxFile[]> {
  const [agentFiles, sidecar] = await Promise.all([input.agent.files(), readBundle("sidecar")]);
  return [
    ...agentFiles,
    { path: SIDECAR_FILE, content: sidecar },
    {
      path: SIDECAR_CONFIG_FILE,
      content: `${JSON.stringify(buildSidecarConfig(input), null, 2)}\n`,
    },
  ];
}

export interface SidecarSecrets {
  heartbeatSecret: string;
  /** The daemon's environment (`Agent.daemon().env`): its secrets, handed over in memory. */
  daemonEnv: Record<string, string>;
  protectionBypass?: string | null;
}

/** Pure: the sidecar's process environment; every secret it gets is here and nowhere on disk. */
export function sidecarLaunchEnv(s: SidecarSecrets): Record<string, string> {
  const protectionBypass = s.protectionBypass ?? null;
  return {
    [HB_SECRET_ENV]: s.heartbeatSecret,
    [DAEMON_ENV_ENV]: JSON.stringify(s.daemonEnv),
    ...(protectionBypass ? { [BYPASS_ENV]: protectionBypass } : {}),
  };
}

/** Starts the sidecar detached; its secrets travel only in its environment (docs/sidecar.md). */
export async function launchSidecar(
  sandbox: ManagedSandbox,
  secrets: SidecarSecrets,
): Promise<void> {
  await sandbox.runCommand({
    cmd: "node",
    args: [SIDECAR_FILE, SIDECAR_CONFIG_FILE],
    env: sidecarLaunchEnv(secrets),
    detached: true,
  });
}

import type { ToolSpec } from "../../config/schema";
import { BYPASS_ENV, HB_SECRET_ENV, SANDBOX_PORTS } from "../../protocol/constants";
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

/** Pure: the sidecar's config file. It carries no secret (that goes in the environment). */
export function buildSidecarConfig(input: ProvisionInput): SidecarConfigInput {
  const daemon = input.agent.daemon();
  return {
    sandboxId: input.sandbox.id,
    root: input.sandbox.root,
    sandboxCreatedAt: input.sandbox.createdAt,
    parentUrl: input.parentUrl,
    daemon: { command: daemon.command, args: daemon.args, env: daemon.env, port: daemon.port },
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

/** Starts the sidecar detached; its secret travels only in its environment (docs/sidecar.md). */
export async function launchSidecar(
  sandbox: ManagedSandbox,
  heartbeatSecret: string,
  protectionBypass: string | null = null,
): Promise<void> {
  await sandbox.runCommand({
    cmd: "node",
    args: [SIDECAR_FILE, SIDECAR_CONFIG_FILE],
    env: {
      [HB_SECRET_ENV]: heartbeatSecret,
      ...(protectionBypass ? { [BYPASS_ENV]: protectionBypass } : {}),
    },
    detached: true,
  });
}

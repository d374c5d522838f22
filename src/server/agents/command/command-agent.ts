import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import type { SandboxFile } from "../../providers/types";
import { deliverOverHttp } from "../http-delivery";
import type { Agent, DaemonTransport } from "../types";
import type { CommandAgentConfig } from "./config";

/** Any daemon given in clawrun.json: how a user runs their own agent today. */
export class CommandAgent implements Agent {
  readonly name = "command";
  readonly deliveryTimeoutMs: number;

  constructor(
    private readonly config: CommandAgentConfig,
    /** Resolved daemon env (`fromEnv` references already looked up by the composition root). */
    private readonly env: Record<string, string>,
    /** Directory the `files` map's local paths are relative to (the project). */
    private readonly projectDir: string,
  ) {
    this.deliveryTimeoutMs = config.delivery.timeoutMs;
  }

  async files(): Promise<SandboxFile[]> {
    return Promise.all(
      Object.entries(this.config.files).map(async ([sandboxPath, localPath]) => {
        const absolute = resolve(this.projectDir, localPath);
        try {
          return { path: sandboxPath, content: await readFile(absolute), mode: 0o755 };
        } catch (err) {
          throw new Error(
            `clawrun.json: agent.files["${sandboxPath}"]: cannot read ${absolute} (${(err as Error).message})`,
          );
        }
      }),
    );
  }

  daemon() {
    return {
      command: this.config.command,
      args: this.config.args,
      env: this.env,
      port: this.config.port,
    };
  }

  deliver(door: DaemonTransport, message: Parameters<Agent["deliver"]>[1], signal: AbortSignal) {
    return deliverOverHttp(
      door,
      this.config.delivery.path,
      message,
      this.config.delivery.format,
      signal,
    );
  }
}

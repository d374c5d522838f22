import { type AgentCronJob, parseAgentCronReport } from "../../../protocol/agent-message";
import { SANDBOX_PORTS } from "../../../protocol/constants";
import { readBundle } from "../../bundles";
import { deliverOverHttp } from "../http-delivery";
import { type Agent, AgentDeliveryError, type DaemonTransport, PROVISION_DIR } from "../types";

/** The reference agent (src/agent-echo): needs no API key; the default for local runs. */
export class EchoAgent implements Agent {
  readonly name = "echo";
  readonly deliveryTimeoutMs = 10_000;

  constructor(
    private readonly port: number = SANDBOX_PORTS.daemon,
    private readonly env: Record<string, string> = {},
  ) {}

  async files() {
    return [{ path: `${PROVISION_DIR}/agent-echo.js`, content: await readBundle("agentEcho") }];
  }

  daemon() {
    return {
      command: "node",
      args: [`${PROVISION_DIR}/agent-echo.js`],
      env: this.env,
      port: this.port,
    };
  }

  deliver(door: DaemonTransport, message: Parameters<Agent["deliver"]>[1], signal: AbortSignal) {
    return deliverOverHttp(door, "/message", message, "json", signal);
  }

  async cronJobs(door: DaemonTransport, signal: AbortSignal): Promise<AgentCronJob[]> {
    const res = await door.fetch("/cron", { signal });
    if (!res.ok)
      throw new AgentDeliveryError(`echo agent /cron answered ${res.status}`, res.status);
    const report = parseAgentCronReport(await res.json());
    if (!report.ok) throw new AgentDeliveryError(`echo agent /cron: ${report.error}`, res.status);
    return report.value.jobs;
  }
}

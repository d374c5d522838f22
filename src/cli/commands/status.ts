import { fleetSchema, overviewSchema } from "../api-schemas";
import type { Command } from "../command";
import { EXIT } from "../exit-codes";
import { formatStatus } from "../format";
import { formatFleet } from "../format-fleet";

export const statusCommand: Command = {
  name: "status",
  summary: "is the agent awake, until when, and what it has been doing",
  arity: { min: 0, max: 0 },
  flags: {},
  notes: [
    "A deployment with several agents: one row per agent (the fleet, GET /api/agents) unless",
    "--agent (or CLAWRUN_AGENT) names one; --json then prints {agents: [...]}.",
    "Exits 0 whatever the agent's state; 1 only when the server answers an error.",
  ],
  async run(ctx) {
    const api = ctx.api();
    // No agent named: the fleet when there are several; a server from before several agents
    // has no /api/agents, and one agent keeps the one agent's status.
    if (api.agent === null) {
      const fleet = await api.getIfPresent("/api/agents", fleetSchema);
      if (fleet && fleet.agents.length > 1) {
        if (ctx.json) ctx.out(JSON.stringify({ agents: fleet.agents }));
        else for (const line of formatFleet(fleet.agents, ctx.now())) ctx.out(line);
        return EXIT.ok;
      }
    }
    const overview = await api.get("/api/sandbox", overviewSchema);
    if (ctx.json) ctx.out(JSON.stringify(overview));
    else for (const line of formatStatus(overview)) ctx.out(line);
    return EXIT.ok;
  },
};

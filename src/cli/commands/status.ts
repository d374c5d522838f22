import { overviewSchema } from "../api-schemas";
import type { Command } from "../command";
import { EXIT } from "../exit-codes";
import { formatStatus } from "../format";

export const statusCommand: Command = {
  name: "status",
  summary: "is the agent awake, until when, and what it has been doing",
  arity: { min: 0, max: 0 },
  flags: {},
  notes: ["Exits 0 whatever the agent's state; 1 only when the server answers an error."],
  async run(ctx) {
    const overview = await ctx.api().get("/api/sandbox", overviewSchema);
    if (ctx.json) ctx.out(JSON.stringify(overview));
    else for (const line of formatStatus(overview)) ctx.out(line);
    return EXIT.ok;
  },
};

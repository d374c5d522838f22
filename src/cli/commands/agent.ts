import { preparedLayerSchema } from "../api-schemas";
import type { Command } from "../command";
import { EXIT } from "../exit-codes";

/** The server gives up after its route's 300 s; the CLI waits a little longer for its answer. */
const PREPARE_TIMEOUT_MS = 310_000;

export const agentPrepareCommand: Command = {
  name: "agent prepare",
  summary: "build the agent's layer now, so the first start does not wait for it",
  arity: { min: 0, max: 0 },
  flags: {},
  notes: [
    "Vercel (snapshot mode): the layer's template snapshot, made once per layer version; local:",
    "the shared layer directory. Already there and intact: reused at once. Exit 1 with the",
    "reason when the build failed or the agent or provider has no layer.",
  ],
  async run(ctx) {
    const { body } = await ctx
      .api()
      .post("/api/sandbox/layer", preparedLayerSchema, undefined, [], PREPARE_TIMEOUT_MS);
    if (ctx.json) ctx.out(JSON.stringify(body));
    else
      ctx.out(
        `layer ${body.layerId}: ${body.action} in ${(body.ms / 1000).toFixed(1)} s${
          body.snapshotId ? ` (template snapshot ${body.snapshotId})` : ""
        }`,
      );
    return EXIT.ok;
  },
};

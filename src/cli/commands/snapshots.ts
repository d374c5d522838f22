import { deletedSchema, snapshotsSchema } from "../api-schemas";
import type { Command } from "../command";
import { EXIT } from "../exit-codes";
import { formatSnapshots } from "../format";

export const snapshotsCommand: Command = {
  name: "snapshots",
  summary: "the snapshots kept, newest first",
  arity: { min: 0, max: 0 },
  flags: {},
  async run(ctx) {
    const { snapshots } = await ctx.api().get("/api/sandbox/snapshots", snapshotsSchema);
    if (ctx.json) ctx.out(JSON.stringify({ snapshots }));
    else for (const line of formatSnapshots(snapshots, ctx.now())) ctx.out(line);
    return EXIT.ok;
  },
};

export const snapshotsDeleteCommand: Command = {
  name: "snapshots delete",
  summary: "delete one snapshot",
  operands: "<id>",
  arity: { min: 1, max: 1 },
  flags: {},
  async run(ctx, args) {
    const id = args.positionals[0] as string;
    const { body } = await ctx
      .api()
      .delete(`/api/sandbox/snapshots/${encodeURIComponent(id)}`, deletedSchema);
    ctx.out(ctx.json ? JSON.stringify(body) : `deleted ${body.deleted}`);
    return EXIT.ok;
  },
};

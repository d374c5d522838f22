import { configRowsSchema } from "../api-schemas";
import type { Command } from "../command";
import { EXIT } from "../exit-codes";
import { formatConfigRows } from "../format";

export const configCheckCommand: Command = {
  name: "config check",
  summary: "validate clawrun.json and the environment here, as `npm start` would",
  arity: { min: 0, max: 0 },
  flags: {},
  notes: [
    "Runs the start-up validation itself (src/server/setup/startup-check.ts), so the messages are",
    "the ones `npm run dev` / `npm start` print. It reads this machine's files and environment",
    "(CLAWRUN_CONFIG, default ./clawrun.json), not the deployment's. Exit 1 when invalid.",
  ],
  async run(ctx) {
    // Loaded on use: it pulls in every module's schema, which other commands do not need.
    const { checkStartup } = await import("../../server/setup/startup-check");
    const check = checkStartup(ctx.env, ctx.cwd);
    if (!check.ok) {
      if (ctx.json) ctx.out(JSON.stringify({ ok: false, problems: check.problems }));
      else {
        ctx.err("ClawRun cannot start:");
        for (const line of check.problems) ctx.err(`  ${line}`);
      }
      return EXIT.failure;
    }
    if (ctx.json) ctx.out(JSON.stringify({ ok: true, config: check.configPath }));
    else
      ctx.out(
        check.configPath
          ? `ok: ${check.configPath} and the environment are valid`
          : `ok: no clawrun.json at ${check.env.configPath}; the defaults apply (echo agent, local sandboxes)`,
      );
    return EXIT.ok;
  },
};

export const configShowCommand: Command = {
  name: "config show",
  summary: "the deployment's effective configuration and where each value comes from",
  arity: { min: 0, max: 0 },
  flags: {},
  notes: ["Asks the deployment (GET /api/sandbox/config); secret values are never shown."],
  async run(ctx) {
    const { rows } = await ctx.api().get("/api/sandbox/config", configRowsSchema);
    if (ctx.json) ctx.out(JSON.stringify({ rows }));
    else for (const line of formatConfigRows(rows)) ctx.out(line);
    return EXIT.ok;
  },
};

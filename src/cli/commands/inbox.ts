import { inboxSchema, retriedSchema } from "../api-schemas";
import type { Command } from "../command";
import { EXIT } from "../exit-codes";
import { formatInbox } from "../format";

export const inboxCommand: Command = {
  name: "inbox",
  summary:
    "messages waiting for the agent and replies waiting for the platforms, with dead letters",
  arity: { min: 0, max: 0 },
  flags: {},
  async run(ctx) {
    const inbox = await ctx.api().get("/api/sandbox/inbox", inboxSchema);
    if (ctx.json) ctx.out(JSON.stringify(inbox));
    else for (const line of formatInbox(inbox, ctx.now())) ctx.out(line);
    return EXIT.ok;
  },
};

export const inboxRetryCommand: Command = {
  name: "inbox retry",
  summary: "send a dead letter again (a message to the agent, or a reply:<id> to its platform)",
  operands: "<id>",
  arity: { min: 1, max: 1 },
  flags: {},
  notes: [
    "A message goes back to the inbox and is delivered (waking the agent if needed); a reply",
    "(id reply:<message id>, as `clawrun inbox` lists it) is sent to its platform again.",
  ],
  async run(ctx, args) {
    const id = args.positionals[0] as string;
    const route = id.startsWith("reply:") ? "replies" : "inbox";
    const { body } = await ctx
      .api()
      .post(`/api/sandbox/${route}/${encodeURIComponent(id)}/retry`, retriedSchema);
    ctx.out(ctx.json ? JSON.stringify(body) : `retrying ${body.retried}`);
    return EXIT.ok;
  },
};

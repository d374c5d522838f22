import { randomBytes } from "node:crypto";
import { webhookAnswerSchema } from "../api-schemas";
import { flag } from "../args";
import type { Command } from "../command";
import { EXIT } from "../exit-codes";

/** Long enough for an LLM agent to answer; a sleeping agent answers 202 at once anyway. */
const SEND_TIMEOUT_MS = 120_000;

export const sendCommand: Command = {
  name: "send",
  summary: "send a message through the generic webhook and print the reply (or that it is queued)",
  operands: "<text>",
  arity: { min: 1, max: 1 },
  flags: {
    conversation: {
      type: "string",
      short: "c",
      value: "<id>",
      description: 'the conversation it belongs to (default "cli")',
    },
    id: {
      type: "string",
      value: "<id>",
      description: "the message id (default: a new random one; the same id is a duplicate)",
    },
  },
  notes: [
    "Signed with CLAWRUN_WEBHOOK_SECRET (or the local secrets.json), exactly like any sender.",
    "A running agent answers at once: its reply is printed. A sleeping one is woken and the",
    'message waits in the inbox: "queued <id>" is printed (exit 0 either way).',
  ],
  async run(ctx, args) {
    const text = args.positionals[0] as string;
    const id = flag.str(args, "id") ?? `cli-${randomBytes(6).toString("hex")}`;
    const conversation = flag.str(args, "conversation") ?? "cli";
    const { body } = await ctx
      .api()
      .webhook({ id, conversation, text }, webhookAnswerSchema, SEND_TIMEOUT_MS);
    if (ctx.json) ctx.out(JSON.stringify(body));
    else if (body.status === "delivered")
      ctx.out(body.reply ?? `(${body.id}: delivered, no reply)`);
    else if (body.status === "queued") ctx.out(`queued ${body.id} (delivered after the wake)`);
    else ctx.out(`duplicate ${body.id} (already received; not delivered again)`);
    return EXIT.ok;
  },
};

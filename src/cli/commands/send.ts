import { randomBytes } from "node:crypto";
import { interrupted } from "../api-client";
import { type EventView, eventsSchema, webhookAnswerSchema } from "../api-schemas";
import { flag } from "../args";
import { type Command, type CommandContext, pause } from "../command";
import { CliError, EXIT, type ExitCode } from "../exit-codes";
import { newEvents } from "../follow";
import { type MessageFate, messageFate } from "../reply-watch";

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
    wait: {
      type: "boolean",
      short: "w",
      description: "when queued, wait for the agent's reply (from the event log) and print it",
    },
    timeout: {
      type: "integer",
      value: "<s>",
      min: 1,
      max: 3600,
      description: "how long --wait waits (default 180 s)",
    },
  },
  notes: [
    "Signed with CLAWRUN_WEBHOOK_SECRET (or the local secrets.json), exactly like any sender.",
    "A running agent answers at once: its reply is printed. A sleeping one is woken and the",
    'message waits in the inbox: "queued <id>" is printed (exit 0 either way); with --wait the',
    "reply follows once the agent woke and answered (exit 1 if it was dead-lettered or time ran out).",
  ],
  async run(ctx, args) {
    const text = args.positionals[0] as string;
    const id = flag.str(args, "id") ?? `cli-${randomBytes(6).toString("hex")}`;
    const conversation = flag.str(args, "conversation") ?? "cli";
    const api = ctx.api();
    // Seen before sending: --wait then reads only what happened to this message.
    const before = flag.bool(args, "wait")
      ? await api.get("/api/sandbox/events?limit=200", eventsSchema)
      : null;
    const { body } = await api.webhook(
      { id, conversation, text },
      webhookAnswerSchema,
      SEND_TIMEOUT_MS,
    );
    const waiting = before !== null && body.status === "queued";
    // With --json --wait, one document: the reply (printed below) instead of "queued".
    if (ctx.json) {
      if (!waiting) ctx.out(JSON.stringify(body));
    } else if (body.status === "delivered")
      ctx.out(body.reply ?? `(${body.id}: delivered, no reply)`);
    else if (body.status === "queued") ctx.out(`queued ${body.id} (delivered after the wake)`);
    else ctx.out(`duplicate ${body.id} (already received; not delivered again)`);
    if (!waiting) return EXIT.ok;
    const seen = new Set(before.events.map((e) => e.id));
    return waitForReply(ctx, id, seen, (flag.int(args, "timeout") ?? 180) * 1000);
  },
};

async function waitForReply(
  ctx: CommandContext,
  id: string,
  seen: Set<string>,
  ms: number,
): Promise<ExitCode> {
  const api = ctx.api();
  const deadline = ctx.now() + ms;
  const history: EventView[] = [];
  let fate: MessageFate | null = null;
  while (!ctx.signal.aborted) {
    const { events } = await api.get("/api/sandbox/events?limit=200", eventsSchema);
    for (const e of newEvents(events, seen)) {
      seen.add(e.id);
      history.push(e);
    }
    fate = messageFate(history, id);
    if (fate?.kind === "replied") {
      if (ctx.json) ctx.out(JSON.stringify({ status: "replied", id, reply: fate.reply }));
      else ctx.out(fate.reply);
      return EXIT.ok;
    }
    if (fate?.kind === "failed") throw new CliError(EXIT.failure, fate.detail, "dead_letter");
    if (ctx.now() > deadline) break;
    await pause(500, ctx.signal);
  }
  if (ctx.signal.aborted) throw interrupted();
  // An agent may answer nothing (no reply is sent then): say how far the message got.
  throw new CliError(
    EXIT.failure,
    fate?.kind === "delivered"
      ? `${id} was delivered but no reply came within ${ms / 1000} s`
      : `${id} is still waiting in the inbox after ${ms / 1000} s`,
    "timeout",
  );
}

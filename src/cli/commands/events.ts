import { eventsSchema } from "../api-schemas";
import { flag } from "../args";
import { type Command, pause } from "../command";
import { EXIT } from "../exit-codes";
import { type EventCursor, eventsAfter } from "../follow";
import { formatEvent } from "../format";
import { followFlags, followInterval, followPoller } from "../poll";

export const eventsCommand: Command = {
  name: "events",
  summary: "the lifecycle events, oldest first (--follow: keep printing new ones)",
  arity: { min: 0, max: 0 },
  flags: {
    limit: {
      type: "integer",
      value: "<n>",
      min: 1,
      max: 1000,
      description: "how many of the newest events to show first (default 20)",
    },
    ...followFlags("events"),
  },
  notes: ["With --json: one event per line (JSON Lines), also while following."],
  async run(ctx, args) {
    const limit = flag.int(args, "limit") ?? 20;
    const interval = followInterval(args);
    const api = ctx.api();
    // What was printed ends at the cursor; a later, wider window prints only what lies above it.
    let cursor: EventCursor = null;
    const print = async (n: number) => {
      const { events } = await api.get(`/api/sandbox/events?limit=${n}`, eventsSchema);
      const next = eventsAfter(events, cursor);
      cursor = next.cursor;
      for (const e of next.events)
        ctx.out(ctx.json ? JSON.stringify(e) : formatEvent(e, ctx.now()));
    };
    await print(limit);
    const follow = flag.bool(args, "follow");
    if (cursor === null && !ctx.json && !follow) ctx.out("no events yet");
    if (!follow) return EXIT.ok;
    ctx.err(`(following ${api.where}: new events appear as they happen; Ctrl-C ends)`);
    // A window of the newest 200 events per poll: more than a second can produce.
    const poll = followPoller(ctx);
    while (!ctx.signal.aborted) {
      await pause(interval, ctx.signal);
      if (!ctx.signal.aborted) await poll(() => print(200));
    }
    return EXIT.ok;
  },
};

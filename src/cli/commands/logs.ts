import { type LogLineView, logsSchema } from "../api-schemas";
import { flag } from "../args";
import { type Command, pause } from "../command";
import { EXIT } from "../exit-codes";
import { newLogLines } from "../follow";
import { followFlags, followInterval, followPoller } from "../poll";

export const logsCommand: Command = {
  name: "logs",
  summary: "the last lines of the sandbox's log (--follow: keep printing new ones)",
  arity: { min: 0, max: 0 },
  flags: {
    ...followFlags("lines"),
  },
  notes: [
    "Daemon lines are marked [daemon:out] / [daemon:err]. When the agent sleeps, the lines kept",
    "from its last sandbox are shown with a note (on stderr) saying so.",
    "With --json: the API's answer; with --follow, one line object per line (JSON Lines).",
  ],
  async run(ctx, args) {
    const api = ctx.api();
    const follow = flag.bool(args, "follow");
    const interval = followInterval(args);
    let last = await api.get("/api/sandbox/logs", logsSchema);
    if (ctx.json && !follow) {
      ctx.out(JSON.stringify(last));
      return EXIT.ok;
    }
    let note = last.note ?? null;
    if (note && !ctx.json) ctx.err(`(${note})`);
    const print = (lines: LogLineView[], sandboxId: string | null) => {
      for (const l of lines) ctx.out(ctx.json ? JSON.stringify({ sandboxId, ...l }) : l.text);
    };
    print(last.lines, last.sandboxId);
    if (follow)
      ctx.err(`(following ${api.where}: new lines appear as they are written; Ctrl-C ends)`);
    const poll = followPoller(ctx);
    while (follow && !ctx.signal.aborted) {
      await pause(interval, ctx.signal);
      if (ctx.signal.aborted) break;
      const next = await poll(() => api.get("/api/sandbox/logs", logsSchema));
      if (!next) continue;
      // Another sandbox (a wake) starts another log: print it from its start.
      const fresh =
        next.sandboxId !== last.sandboxId ? next.lines : newLogLines(last.lines, next.lines);
      if ((next.note ?? null) !== note && next.note && !ctx.json) ctx.err(`(${next.note})`);
      note = next.note ?? null;
      print(fresh, next.sandboxId);
      last = next;
    }
    return EXIT.ok;
  },
};

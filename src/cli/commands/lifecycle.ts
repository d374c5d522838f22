import { eventsSchema, type TransitionView, transitionSchema } from "../api-schemas";
import { flag } from "../args";
import type { Command, CommandContext } from "../command";
import { CliError, EXIT, usageError } from "../exit-codes";
import { waitForSnapshot, waitForStatus } from "./lifecycle-wait";

const WAIT_FLAGS = {
  wait: { type: "boolean", short: "w", description: "wait until the agent got there" },
  timeout: {
    type: "integer",
    value: "<s>",
    min: 1,
    max: 3600,
    description: "how long --wait waits (default 120 s)",
  },
} as const;

export const wakeCommand: Command = {
  name: "wake",
  summary: "start the agent (from its newest snapshot unless told otherwise)",
  arity: { min: 0, max: 0 },
  flags: {
    fresh: { type: "boolean", description: "start without restoring (snapshots are kept)" },
    snapshot: { type: "string", value: "<id>", description: "wake from this snapshot" },
    ...WAIT_FLAGS,
  },
  notes: ["An agent that is already running is not an error (exit 0, says so)."],
  async run(ctx, args) {
    const fresh = flag.bool(args, "fresh");
    const snapshotId = flag.str(args, "snapshot");
    if (fresh && snapshotId) throw usageError("--fresh and --snapshot exclude each other");
    const body = fresh ? { fresh: true } : snapshotId ? { snapshotId } : {};
    try {
      const { body: t } = await ctx.api().post("/api/sandbox/start", transitionSchema, body);
      report(ctx, t, flag.bool(args, "wait"));
      return flag.bool(args, "wait") ? waitForStatus(ctx, t, "running", timeoutMs(args)) : EXIT.ok;
    } catch (err) {
      if (!(err instanceof CliError) || err.code !== "already_running") throw err;
      if (ctx.json) ctx.out(JSON.stringify({ action: "start", already: "running" }));
      else ctx.out("already running");
      return EXIT.ok;
    }
  },
};

export const stopCommand: Command = {
  name: "stop",
  summary: "snapshot the agent and stop its sandbox (it wakes on the next message)",
  arity: { min: 0, max: 0 },
  flags: { ...WAIT_FLAGS },
  async run(ctx, args) {
    const { body: t } = await ctx.api().post("/api/sandbox/stop", transitionSchema);
    report(ctx, t, flag.bool(args, "wait"));
    return flag.bool(args, "wait") ? waitForStatus(ctx, t, "sleeping", timeoutMs(args)) : EXIT.ok;
  },
};

export const snapshotCommand: Command = {
  name: "snapshot",
  summary: "take a snapshot now; the agent keeps running",
  arity: { min: 0, max: 0 },
  flags: { ...WAIT_FLAGS },
  notes: ["--wait waits for the snapshot.taken event and prints the snapshot's id."],
  async run(ctx, args) {
    const api = ctx.api();
    const wait = flag.bool(args, "wait");
    // The status stays "running" while a snapshot is taken: --wait watches the events.
    const before = wait ? await api.get("/api/sandbox/events?limit=200", eventsSchema) : null;
    const { body: t } = await api.post("/api/sandbox/snapshot", transitionSchema);
    report(ctx, t, wait);
    if (!before) return EXIT.ok;
    return waitForSnapshot(ctx, t, new Set(before.events.map((e) => e.id)), timeoutMs(args));
  },
};

function timeoutMs(args: Parameters<Command["run"]>[1]): number {
  return (flag.int(args, "timeout") ?? 120) * 1000;
}

/** The transition started; with --json --wait the one document comes at the end instead. */
function report(ctx: CommandContext, t: TransitionView, wait: boolean): void {
  if (!ctx.json) ctx.out(`${t.action}: ${t.from} → ${t.to}`);
  else if (!wait) ctx.out(JSON.stringify(t));
}

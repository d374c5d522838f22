import {
  eventsSchema,
  overviewSchema,
  type TransitionView,
  transitionSchema,
} from "../api-schemas";
import { flag } from "../args";
import { type Command, type CommandContext, pause } from "../command";
import { CliError, EXIT, type ExitCode, usageError } from "../exit-codes";
import { newEvents } from "../follow";

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
      report(ctx, t);
    } catch (err) {
      if (!(err instanceof CliError) || err.code !== "already_running") throw err;
      if (ctx.json) ctx.out(JSON.stringify({ action: "start", already: "running" }));
      else ctx.out("already running");
      return EXIT.ok;
    }
    return flag.bool(args, "wait") ? waitFor(ctx, "running", timeoutMs(args)) : EXIT.ok;
  },
};

export const stopCommand: Command = {
  name: "stop",
  summary: "snapshot the agent and stop its sandbox (it wakes on the next message)",
  arity: { min: 0, max: 0 },
  flags: { ...WAIT_FLAGS },
  async run(ctx, args) {
    const { body: t } = await ctx.api().post("/api/sandbox/stop", transitionSchema);
    report(ctx, t);
    return flag.bool(args, "wait") ? waitFor(ctx, "sleeping", timeoutMs(args)) : EXIT.ok;
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
    report(ctx, t);
    if (!before) return EXIT.ok;
    return waitForSnapshot(ctx, new Set(before.events.map((e) => e.id)), timeoutMs(args));
  },
};

function timeoutMs(args: Parameters<Command["run"]>[1]): number {
  return (flag.int(args, "timeout") ?? 120) * 1000;
}

function report(ctx: CommandContext, t: TransitionView): void {
  if (ctx.json) ctx.out(JSON.stringify(t));
  else ctx.out(`${t.action}: ${t.from} → ${t.to}`);
}

/**
 * Polls the status until it is `target` (exit 0), `failed` (exit 1, with the cause) or the
 * time is up (exit 1). Each status seen on the way is printed once.
 */
async function waitFor(ctx: CommandContext, target: string, ms: number): Promise<ExitCode> {
  const api = ctx.api();
  const deadline = ctx.now() + ms;
  let shown = "";
  while (!ctx.signal.aborted) {
    const o = await api.get("/api/sandbox", overviewSchema);
    const status = o.instance.status;
    const settled = status === target && !o.transitioning;
    if (status !== shown) {
      shown = status;
      if (!ctx.json) ctx.out(`${status}${o.instance.reason ? ` (${o.instance.reason})` : ""}`);
    }
    if (settled || status === "failed") {
      if (ctx.json) ctx.out(JSON.stringify({ status, error: o.instance.error ?? null }));
      if (status === "failed")
        throw new CliError(
          EXIT.failure,
          `failed: ${o.instance.error ?? "no cause given"}`,
          "failed",
        );
      return EXIT.ok;
    }
    if (ctx.now() > deadline) {
      throw new CliError(
        EXIT.failure,
        `still ${status} after ${ms / 1000} s (waiting for ${target})`,
        "timeout",
      );
    }
    await pause(250, ctx.signal);
  }
  return EXIT.ok;
}

/** Until a new snapshot.taken (exit 0) or a new error event such as lifecycle.failed (exit 1). */
async function waitForSnapshot(
  ctx: CommandContext,
  seen: Set<string>,
  ms: number,
): Promise<ExitCode> {
  const api = ctx.api();
  const deadline = ctx.now() + ms;
  while (!ctx.signal.aborted) {
    const { events } = await api.get("/api/sandbox/events?limit=200", eventsSchema);
    for (const e of newEvents(events, seen)) {
      seen.add(e.id);
      if (e.type === "snapshot.taken") {
        const id = (e.details as { snapshotId?: unknown } | undefined)?.snapshotId;
        if (ctx.json) ctx.out(JSON.stringify({ snapshotId: typeof id === "string" ? id : null }));
        else ctx.out(`taken: ${typeof id === "string" ? id : e.message}`);
        return EXIT.ok;
      }
      if (e.level === "error") throw new CliError(EXIT.failure, e.message, e.type);
    }
    if (ctx.now() > deadline) {
      throw new CliError(EXIT.failure, `no snapshot after ${ms / 1000} s`, "timeout");
    }
    await pause(250, ctx.signal);
  }
  return EXIT.ok;
}

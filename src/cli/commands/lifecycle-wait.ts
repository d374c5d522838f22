import { interrupted } from "../api-client";
import { eventsSchema, overviewSchema, type TransitionView } from "../api-schemas";
import { type CommandContext, pause } from "../command";
import { CliError, EXIT, type ExitCode } from "../exit-codes";
import { newEvents } from "../follow";

/** `--wait` of wake, stop and snapshot: the outcome of a transition the server started. */

/**
 * Polls the status until it is `target` (exit 0), `failed` (exit 1, with the cause) or the
 * time is up (exit 1). Each status seen on the way is printed once.
 */
export async function waitForStatus(
  ctx: CommandContext,
  t: TransitionView,
  target: string,
  ms: number,
): Promise<ExitCode> {
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
      if (status === "failed")
        throw new CliError(
          EXIT.failure,
          `failed: ${o.instance.error ?? "no cause given"}`,
          "failed",
        );
      if (ctx.json) ctx.out(JSON.stringify({ ...t, status }));
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
  throw interrupted();
}

/** Until a new snapshot.taken (exit 0) or a new error event such as lifecycle.failed (exit 1). */
export async function waitForSnapshot(
  ctx: CommandContext,
  t: TransitionView,
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
        if (ctx.json)
          ctx.out(JSON.stringify({ ...t, snapshotId: typeof id === "string" ? id : null }));
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
  throw interrupted();
}

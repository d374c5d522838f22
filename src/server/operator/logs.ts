import type { AppContext } from "../app-context";
import { sidecarClient } from "../door/sidecar-client";
import { readKeptLog } from "../sandbox/log-keeper";

export interface LogLine {
  text: string;
  source: "daemon:out" | "daemon:err" | "sidecar";
}

export interface LogTail {
  sandboxId: string | null;
  lines: LogLine[];
  note: string | null;
}

const TAIL_LINES = 200;
/** Enough bytes for TAIL_LINES lines of daemon output. */
const TAIL_BYTES = 256 * 1024;

/** Pure: the last lines of a log, daemon lines marked by the prefix the sidecar writes. */
export function logLines(text: string, max = TAIL_LINES): LogLine[] {
  return text
    .split("\n")
    .filter((l) => l.length > 0)
    .slice(-max)
    .map((line) => ({
      text: line,
      source: line.includes("[daemon:out]")
        ? ("daemon:out" as const)
        : line.includes("[daemon:err]")
          ? ("daemon:err" as const)
          : ("sidecar" as const),
    }));
}

/**
 * The last lines of the current sandbox's sidecar log, read through the sidecar's signed door
 * (`GET /logs?tail=`: no command runs in the sandbox per poll). When there is no sandbox
 * (asleep, failed) or its door does not answer (a snapshot is being taken, it is gone), the
 * lines kept from the last sandbox before it was stopped, saying so.
 */
export async function sidecarLogTail(
  ctx: Pick<AppContext, "manager" | "provider" | "secrets" | "store">,
): Promise<LogTail> {
  const state = (await ctx.manager.getState()).value;
  let why = `no sandbox (the agent is ${state.status})`;
  if (state.sandboxId) {
    try {
      const sandbox = await ctx.provider.get(state.sandboxId);
      const door = sidecarClient(sandbox, ctx.secrets.secrets.CLAWRUN_SECRET);
      const text = await door.logTail(TAIL_BYTES, AbortSignal.timeout(5_000));
      if (text !== "") return { sandboxId: state.sandboxId, lines: logLines(text), note: null };
      why = "the sidecar has not written its log yet";
    } catch (err) {
      why = `the sandbox's log cannot be read right now (${(err as Error).message})`;
    }
  }
  const kept = await readKeptLog(ctx.store.kv);
  if (!kept) return { sandboxId: state.sandboxId, lines: [], note: why };
  return {
    sandboxId: kept.sandboxId,
    lines: logLines(kept.text),
    note: `${why}; showing the last sandbox's log (${kept.sandboxId}, kept ${new Date(kept.at).toISOString()})`,
  };
}

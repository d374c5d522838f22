import type { AppContext } from "../context";
import { readKeptLog, SIDECAR_LOG_PATH, tailOf } from "../sandbox/log-keeper";

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
 * The last lines of the current sandbox's sidecar log; when there is no sandbox (asleep,
 * failed) or it cannot be read right now (a snapshot is being taken), the lines kept from
 * the last sandbox before it was stopped, saying so.
 */
export async function sidecarLogTail(ctx: AppContext): Promise<LogTail> {
  const state = (await ctx.manager.getState()).value;
  let why = `no sandbox (the agent is ${state.status})`;
  if (state.sandboxId) {
    try {
      const sandbox = await ctx.provider.get(state.sandboxId);
      const content = await sandbox.readFile(SIDECAR_LOG_PATH, AbortSignal.timeout(5_000));
      if (content)
        return {
          sandboxId: state.sandboxId,
          lines: logLines(tailOf(content.toString("utf8"), 256 * 1024)),
          note: null,
        };
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

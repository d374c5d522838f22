import type { AppContext } from "../context";

export interface LogTail {
  sandboxId: string | null;
  lines: { text: string; source: "daemon:out" | "daemon:err" | "sidecar" }[];
  note: string | null;
}

const TAIL_LINES = 200;

/** The last lines of the running sandbox's sidecar log, daemon lines marked. */
export async function sidecarLogTail(ctx: AppContext): Promise<LogTail> {
  const state = (await ctx.manager.getState()).value;
  if (!state.sandboxId)
    return { sandboxId: null, lines: [], note: `no sandbox (the agent is ${state.status})` };
  const sandbox = await ctx.provider.get(state.sandboxId);
  const result = await sandbox.runCommand("tail", ["-n", String(TAIL_LINES), "logs/sidecar.log"]);
  if (result.exitCode !== 0)
    return { sandboxId: state.sandboxId, lines: [], note: result.stderr.trim() || "no log yet" };
  const lines = result.stdout
    .split("\n")
    .filter((l) => l.length > 0)
    .map((text) => ({
      text,
      source: text.includes("[daemon:out]")
        ? ("daemon:out" as const)
        : text.includes("[daemon:err]")
          ? ("daemon:err" as const)
          : ("sidecar" as const),
    }));
  return { sandboxId: state.sandboxId, lines, note: null };
}

import type { CliTarget } from "../config/cli-env";
import type { ApiClient } from "./api-client";
import type { FlagSpecs, ParsedArgs } from "./args";
import type { ExitCode } from "./exit-codes";

/** What every command is given: where to write, how to reach the deployment, when to stop. */
export interface CommandContext {
  out(line: string): void;
  err(line: string): void;
  /** --json: one JSON document (or one per line while following) on stdout. */
  json: boolean;
  env: Record<string, string | undefined>;
  cwd: string;
  target(): CliTarget;
  api(): ApiClient;
  /** Aborted on Ctrl-C / SIGTERM: following commands end cleanly with exit 0. */
  signal: AbortSignal;
  now(): number;
}

export interface Command {
  /** One or two words: "status", "config check". */
  name: string;
  summary: string;
  /** The positional part of the usage line, e.g. "<text>". */
  operands?: string;
  /** How many positionals it takes. */
  arity: { min: number; max: number };
  flags: FlagSpecs;
  /** Extra lines for --help. */
  notes?: string[];
  run(ctx: CommandContext, args: ParsedArgs): Promise<ExitCode>;
}

/** Flags every command takes. */
export const GLOBAL_FLAGS: FlagSpecs = {
  json: { type: "boolean", description: "machine-readable JSON on stdout" },
  url: {
    type: "string",
    value: "<url>",
    description:
      "the deployment (default: CLAWRUN_URL, CLAWRUN_PUBLIC_URL, http://127.0.0.1:$PORT)",
  },
  agent: {
    type: "string",
    value: "<name>",
    description:
      "which agent of a deployment with several (default: CLAWRUN_AGENT, else the default agent)",
  },
  help: { type: "boolean", short: "h", description: "this help" },
};

/** Resolves after ms, or at once when the signal is aborted. */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}

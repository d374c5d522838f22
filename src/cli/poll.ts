import { type FlagSpecs, flag, type ParsedArgs } from "./args";
import type { CommandContext } from "./command";
import { CliError } from "./exit-codes";

/**
 * One request of a `--follow` loop. A deployment that stops answering (a restart, a network
 * blip) is said once on stderr and retried on the next tick, and its return is said too;
 * anything else (refused credentials, an error answer) still ends the command.
 */
export function followPoller(ctx: CommandContext) {
  let lost = false;
  return async <T>(request: () => Promise<T>): Promise<T | null> => {
    try {
      const value = await request();
      if (lost) ctx.err(`(${ctx.api().url} answers again)`);
      lost = false;
      return value;
    } catch (err) {
      // Ctrl-C during a request: the loop ends with the signal (exit 0).
      if (err instanceof CliError && err.code === "interrupted") return null;
      if (!(err instanceof CliError) || err.code !== "unreachable") throw err;
      if (!lost) ctx.err(`(${err.message}; still trying, Ctrl-C ends)`);
      lost = true;
      return null;
    }
  };
}

/** The `--follow` and `--interval` flags of a command that can keep printing new `what`. */
export function followFlags(what: string): FlagSpecs {
  return {
    follow: { type: "boolean", short: "f", description: `keep printing new ${what} until Ctrl-C` },
    interval: {
      type: "integer",
      value: "<ms>",
      min: 100,
      max: 60_000,
      description: "how often --follow asks the server (default 1000)",
    },
  };
}

/** How long a `--follow` loop pauses between requests. */
export function followInterval(args: ParsedArgs): number {
  return flag.int(args, "interval") ?? 1000;
}

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

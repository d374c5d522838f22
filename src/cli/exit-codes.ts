/**
 * What `clawrun` exits with (docs/cli.md lists them for scripts):
 * 0 the command did what was asked; 1 it ran but failed (the server refused the action, the
 * config is invalid, a channel was not registered, the agent failed while waiting);
 * 2 the command line is wrong; 3 the deployment cannot be reached or refused our credentials.
 */
export const EXIT = {
  ok: 0,
  failure: 1,
  usage: 2,
  unreachable: 3,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** An error that ends the command with a given exit code and one readable message. */
export class CliError extends Error {
  constructor(
    readonly exitCode: ExitCode,
    message: string,
    /** The API's error code when the server answered one (`--json` prints it). */
    readonly code: string | null = null,
  ) {
    super(message);
    this.name = "CliError";
  }
}

export function usageError(message: string): CliError {
  return new CliError(EXIT.usage, message, "usage");
}

import packageJson from "../../package.json";
import { readCliTarget } from "../config/cli-env";
import { EnvError } from "../config/env";
import { pickAgent } from "./agent-route";
import { ApiClient } from "./api-client";
import { flag, parseArgs } from "./args";
import { type Command, type CommandContext, GLOBAL_FLAGS } from "./command";
import { COMMANDS } from "./commands";
import { CliError, EXIT, type ExitCode, usageError } from "./exit-codes";
import { commandHelp, generalHelp } from "./help";
import { resolveCommand } from "./resolve";

export interface CliIo {
  out(line: string): void;
  err(line: string): void;
  env: Record<string, string | undefined>;
  cwd: string;
  signal: AbortSignal;
}

/** Runs one `clawrun …` invocation and answers its exit code; never throws. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<ExitCode> {
  const json = argv.includes("--json");
  let name = "clawrun";
  try {
    const resolved = resolveCommand(argv, COMMANDS);
    if (resolved.kind === "version") {
      io.out(packageJson.version);
      return EXIT.ok;
    }
    if (resolved.kind === "help") {
      const lines = resolved.command ? commandHelp(resolved.command) : generalHelp(COMMANDS);
      // `clawrun` alone is a mistake (usage, on stderr), `clawrun --help` is not.
      const write = argv.length === 0 ? io.err : io.out;
      for (const line of lines) write(line);
      return argv.length === 0 ? EXIT.usage : EXIT.ok;
    }
    const { command, rest } = resolved;
    name = `clawrun ${command.name}`;
    const args = parseArgs(rest, { ...command.flags, ...GLOBAL_FLAGS }, name);
    if (flag.bool(args, "help")) {
      for (const line of commandHelp(command)) io.out(line);
      return EXIT.ok;
    }
    checkArity(command, args.positionals);
    const agent = pickAgent(flag.str(args, "agent"), io.env.CLAWRUN_AGENT);
    const ctx = context(io, flag.bool(args, "json"), flag.str(args, "url"), agent?.name ?? null);
    return await command.run(ctx, args);
  } catch (err) {
    const e = asCliError(err);
    if (json) io.out(JSON.stringify({ error: { code: e.code ?? "failed", message: e.message } }));
    else {
      io.err(`${name}: ${e.message}`);
      if (e.exitCode === EXIT.usage && name !== "clawrun" && !e.message.includes("--help"))
        io.err(`(see ${name} --help)`);
    }
    return e.exitCode;
  }
}

function context(
  io: CliIo,
  json: boolean,
  url: string | undefined,
  agent: string | null,
): CommandContext {
  let target: ReturnType<typeof readCliTarget> | undefined;
  const getTarget = () => {
    target ??= readCliTarget(io.env, io.cwd, url);
    return target;
  };
  return {
    out: io.out,
    err: io.err,
    json,
    env: io.env,
    cwd: io.cwd,
    signal: io.signal,
    target: getTarget,
    api: () => new ApiClient(getTarget(), { agent, interrupt: io.signal }),
    now: () => Date.now(),
  };
}

function checkArity(command: Command, positionals: string[]): void {
  const { min, max } = command.arity;
  if (positionals.length >= min && positionals.length <= max) return;
  if (max === 0) {
    throw usageError(`takes no arguments (got "${positionals.join(" ")}")`);
  }
  const expected = command.operands ?? `${min}–${max} arguments`;
  const hint = max === 1 && positionals.length > 1 ? "; quote text that has spaces" : "";
  throw usageError(`expected ${expected} (got ${positionals.length} arguments${hint})`);
}

function asCliError(err: unknown): CliError {
  if (err instanceof CliError) return err;
  // A bad CLAWRUN_URL or PORT is a wrong invocation, not a failure of the deployment.
  if (err instanceof EnvError) return new CliError(EXIT.usage, err.problems.join("; "), "usage");
  return new CliError(EXIT.failure, err instanceof Error ? err.message : String(err), "failed");
}

import type { Command } from "./command";
import { usageError } from "./exit-codes";

/** Which command argv names (pure): "config check" before "config", and what is left over. */
export type Resolved =
  | { kind: "command"; command: Command; rest: string[] }
  | { kind: "help"; command: Command | null }
  | { kind: "version" };

export function resolveCommand(argv: readonly string[], commands: readonly Command[]): Resolved {
  const [first, second] = argv;
  if (first === undefined || first === "--help" || first === "-h")
    return { kind: "help", command: null };
  if (first === "--version") return { kind: "version" };
  if (first === "help") {
    if (argv.length === 1) return { kind: "help", command: null };
    return { kind: "help", command: find(argv.slice(1), commands).command };
  }
  const { command, used } = find(argv, commands);
  return { kind: "command", command, rest: argv.slice(used) };

  function find(words: readonly string[], list: readonly Command[]) {
    const two = `${words[0]} ${words[1] ?? ""}`;
    const byTwo = list.find((c) => c.name === two);
    if (byTwo) return { command: byTwo, used: 2 };
    const byOne = list.find((c) => c.name === words[0]);
    if (byOne) return { command: byOne, used: 1 };
    const group = list.filter((c) => c.name.startsWith(`${words[0]} `));
    if (group.length > 0) {
      const subs = group.map((c) => c.name.split(" ")[1]).join(", ");
      const got = second === undefined ? "" : ` (got "${words[1]}")`;
      throw usageError(`"clawrun ${words[0]}" needs one of: ${subs}${got}`);
    }
    throw usageError(`unknown command "${words[0]}" (see clawrun --help)`);
  }
}

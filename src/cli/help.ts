import type { FlagSpecs } from "./args";
import { type Command, GLOBAL_FLAGS } from "./command";

/** --help texts, pure. */

export function commandHelp(c: Command): string[] {
  const usage = [`clawrun ${c.name}`, c.operands, Object.keys(c.flags).length ? "[flags]" : ""]
    .filter(Boolean)
    .join(" ");
  return [
    `usage: ${usage}`,
    "",
    `${c.summary[0]?.toUpperCase()}${c.summary.slice(1)}.`,
    ...(c.notes?.length ? ["", ...c.notes] : []),
    "",
    "flags:",
    ...flagLines({ ...c.flags, ...GLOBAL_FLAGS }),
    "",
    "exit codes: 0 ok · 1 failed · 2 usage error · 3 cannot reach the deployment or credentials refused",
  ];
}

export function generalHelp(commands: readonly Command[]): string[] {
  const width = Math.max(...commands.map((c) => c.name.length + (c.operands?.length ?? 0) + 1));
  return [
    "usage: clawrun <command> [flags]",
    "",
    "Operates a ClawRun deployment through its operator API (docs/cli.md).",
    "",
    "commands:",
    ...commands.map(
      (c) => `  ${[c.name, c.operands].filter(Boolean).join(" ").padEnd(width)}  ${c.summary}`,
    ),
    "",
    "flags every command takes:",
    ...flagLines(GLOBAL_FLAGS),
    "",
    "The deployment: --url, else CLAWRUN_URL, else CLAWRUN_PUBLIC_URL, else http://127.0.0.1:$PORT",
    "(3000). The operator secret: ADMIN_SECRET, else <CLAWRUN_STATE_DIR>/secrets.json (.clawrun).",
    "Several agents in one deployment: --agent <name> (or CLAWRUN_AGENT) picks one for any command;",
    "without it the default agent answers, and `clawrun status` lists them all.",
    "",
    "exit codes: 0 ok · 1 failed · 2 usage error · 3 cannot reach the deployment or credentials refused",
    "`clawrun <command> --help` tells more about each.",
  ];
}

function flagLines(specs: FlagSpecs): string[] {
  const rows = Object.entries(specs).map(([name, s]) => [
    `${s.short ? `-${s.short}, ` : "    "}--${name}${s.value ? ` ${s.value}` : ""}`,
    s.description,
  ]);
  const width = Math.max(...rows.map(([l]) => (l as string).length));
  return rows.map(([l, d]) => `  ${(l as string).padEnd(width)}  ${d}`);
}

import type { ToolSpec } from "../../config/schema";
import { shellQuote } from "./shell-quote";
import { PROVISION_DIR } from "./types";

/**
 * The daemon command of an agent that must be installed first (OpenClaw, ZeroClaw): a small
 * shell script provisioned as a file. It runs the tool's check, installs when the check fails
 * (progress on stdout/stderr, which the sidecar captures as `[daemon:out]`/`[daemon:err]`),
 * then `exec`s the agent. So the install always completes before the daemon starts, the
 * supervisor reports "starting" until the agent's port opens, and a wake from a snapshot
 * (where the check passes) never reinstalls. docs/agents/openclaw.md, "Start-up".
 */
export interface LauncherInput {
  /** The agent's name in log lines. */
  name: string;
  tool: ToolSpec;
  /** Shell lines run first, in the sandbox root (e.g. exports the agent needs). */
  prelude?: readonly string[];
  /** The command line `exec`ed once the tool is present; `$1` is the listen port. */
  exec: string;
  /**
   * Daemon variables the install never sees (the model key, the gateway token): an install
   * runs third-party package scripts, which have no business reading them.
   */
  hideFromInstall?: readonly string[];
}

/** Where an agent's launcher lives, relative to the sandbox root (provisioned at every start). */
export function launcherPath(name: string): string {
  return `${PROVISION_DIR}/${name}-launcher.sh`;
}

/** Pure: the launcher script. Every tool command runs as its own `sh -c`, as the sidecar runs tools. */
export function launcherScript(input: LauncherInput): string {
  const say = (text: string) => `echo ${shellQuote(`clawrun launcher: ${input.name} ${text}`)}`;
  const check = `sh -c ${shellQuote(input.tool.check)}`;
  for (const name of input.hideFromInstall ?? []) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
      throw new Error(`hideFromInstall: expected variable names, got ${JSON.stringify(name)}`);
  }
  const hide = (input.hideFromInstall ?? []).map((n) => `-u ${n} `).join("");
  const run = hide === "" ? "sh -c" : `env ${hide}sh -c`;
  const steps = input.tool.install.map((command, i) => {
    const what = `install step ${i + 1}/${input.tool.install.length} failed`;
    return `  ${run} ${shellQuote(command)} || { code=$?; echo "clawrun launcher: ${input.name} ${what} (exit $code)" >&2; exit 1; }`;
  });
  return [
    "#!/bin/sh",
    `# Written by ClawRun at every start: installs ${input.name} unless present, then runs it.`,
    // The launcher sits one directory below the sandbox root (launcherPath).
    'root=$(CDPATH= cd -- "$(dirname -- "$0")/.." && pwd)',
    'cd "$root" || exit 1',
    ...(input.prelude ?? []),
    `if ! ${check} >/dev/null 2>&1; then`,
    `  ${say("is not installed: installing it (first start only; a wake from a snapshot skips this)")}`,
    "  started=$(date +%s)",
    ...steps,
    `  if ! ${check}; then`,
    `    ${say("install finished but its check still fails")} >&2`,
    "    exit 1",
    "  fi",
    `  echo "clawrun launcher: ${input.name} installed in $(( $(date +%s) - started )) s"`,
    "fi",
    `exec ${input.exec}`,
    "",
  ].join("\n");
}

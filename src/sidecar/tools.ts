import { spawn } from "node:child_process";
import type { Logger } from "./log-file";

export interface Tool {
  name: string;
  check: string;
  install: string[];
}

export interface InstallToolsOptions {
  tools: readonly Tool[];
  cwd: string;
  /** Daemon-like environment (no heartbeat secret, ~/.local/bin on PATH). */
  env: Record<string, string>;
  attempts: number;
  retryDelayMs: number;
  log: Logger;
  /** Aborted at shutdown: the running command is killed and no further one starts. */
  signal?: AbortSignal;
}

export type ToolOutcome = "present" | "installed" | "failed" | "aborted";

/** Output kept per command for the log when it fails. */
const OUTPUT_TAIL_CHARS = 2_000;

interface ShellResult {
  code: number | null;
  output: string;
}

export function runShell(
  command: string,
  opts: { cwd: string; env: Record<string, string>; signal?: AbortSignal },
): Promise<ShellResult> {
  return new Promise((resolve) => {
    let output = "";
    const keep = (chunk: Buffer): void => {
      output = (output + chunk.toString()).slice(-OUTPUT_TAIL_CHARS);
    };
    const child = spawn("sh", ["-c", command], {
      cwd: opts.cwd,
      env: opts.env as NodeJS.ProcessEnv,
      stdio: ["ignore", "pipe", "pipe"],
      signal: opts.signal,
    });
    child.stdout?.on("data", keep);
    child.stderr?.on("data", keep);
    child.once("error", (err) => {
      if (child.pid === undefined || err.name === "AbortError") resolve({ code: null, output });
    });
    child.once("close", (code) => resolve({ code, output: output.trim() }));
  });
}

/**
 * Tools (docs/sidecar.md, "Tools"): skip a tool whose check passes; otherwise run its install commands in
 * order, up to `attempts` times `retryDelayMs` apart, and confirm with the check. A tool
 * that never installs is a warning; nothing here throws or blocks the daemon.
 */
export async function installTools(
  opts: InstallToolsOptions,
): Promise<Record<string, ToolOutcome>> {
  const outcomes: Record<string, ToolOutcome> = {};
  for (const tool of opts.tools) {
    outcomes[tool.name] = await installTool(tool, opts);
  }
  return outcomes;
}

async function installTool(tool: Tool, opts: InstallToolsOptions): Promise<ToolOutcome> {
  const { log, signal } = opts;
  const shell = { cwd: opts.cwd, env: opts.env, signal };
  if ((await runShell(tool.check, shell)).code === 0) {
    log.info(`tool ${tool.name}: present`);
    return "present";
  }
  for (let attempt = 1; attempt <= opts.attempts; attempt++) {
    if (signal?.aborted) return "aborted";
    log.info(`tool ${tool.name}: installing (attempt ${attempt}/${opts.attempts})`);
    const failure = await runInstall(tool, shell);
    if (signal?.aborted) return "aborted";
    if (failure === null) {
      log.info(`tool ${tool.name}: installed`);
      return "installed";
    }
    log.warn(`tool ${tool.name}: attempt ${attempt}/${opts.attempts} failed: ${failure}`);
    if (attempt < opts.attempts) await sleep(opts.retryDelayMs, signal);
  }
  if (signal?.aborted) return "aborted";
  log.warn(
    `tool ${tool.name}: not installed after ${opts.attempts} attempts; continuing without it`,
  );
  return "failed";
}

/** Runs the install commands in order and the check; returns why it failed, or null. */
async function runInstall(
  tool: Tool,
  shell: { cwd: string; env: Record<string, string>; signal?: AbortSignal },
): Promise<string | null> {
  for (const command of tool.install) {
    const result = await runShell(command, shell);
    if (result.code !== 0) {
      return `\`${command}\` exited with ${result.code ?? "a signal"}: ${result.output}`;
    }
  }
  const check = await runShell(tool.check, shell);
  return check.code === 0 ? null : `check \`${tool.check}\` still fails: ${check.output}`;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
}

import { type ChildProcess, execFile, spawn } from "node:child_process";

/**
 * The operator CLI as operators run it: `node bin/clawrun.mjs …` (what `npx clawrun` runs) in
 * a child process with only the environment given (plus PATH and HOME).
 */
export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export function cliEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    TZ: "UTC",
    NODE_ENV: "test",
    ...env,
  } as unknown as NodeJS.ProcessEnv;
}

export function clawrun(
  args: string[],
  env: Record<string, string>,
  opts: { cwd?: string; timeoutMs?: number } = {},
): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [`${process.cwd()}/bin/clawrun.mjs`, ...args],
      { env: cliEnv(env), cwd: opts.cwd, timeout: opts.timeoutMs ?? 60_000 },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === "number" ? err.code : -1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** A long-running CLI (`--follow`): read its output as it comes, then stop it like Ctrl-C. */
export interface RunningCli {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves when stdout matches; rejects (with the output) after timeoutMs. */
  waitForOutput(match: RegExp | string, timeoutMs?: number): Promise<void>;
  /** SIGINT, then the exit code. */
  interrupt(): Promise<number | null>;
}

export function spawnClawrun(args: string[], env: Record<string, string>): RunningCli {
  const child = spawn(process.execPath, [`${process.cwd()}/bin/clawrun.mjs`, ...args], {
    env: cliEnv(env),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  const waiters = new Set<() => void>();
  child.stdout?.on("data", (d) => {
    out += d;
    for (const w of waiters) w();
  });
  child.stderr?.on("data", (d) => {
    err += d;
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (c) => resolve(c)));
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    waitForOutput: (match, timeoutMs = 30_000) =>
      new Promise((resolve, reject) => {
        const test = () => (typeof match === "string" ? out.includes(match) : match.test(out));
        const check = () => {
          if (!test()) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no ${match} within ${timeoutMs} ms; stdout:\n${out}\nstderr:\n${err}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      }),
    interrupt: async () => {
      if (child.exitCode === null) child.kill("SIGINT");
      return exited;
    },
  };
}
